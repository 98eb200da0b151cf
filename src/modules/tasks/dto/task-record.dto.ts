import { AssigneeDto, PersonDto } from '../../../shared/validation/person.dto.js';
import { PageOf, Prop } from '../../../shared/validation/response-fields.js';
import { ReferenceRecordDto } from '../../collaboration/index.js';
import type { MarkStatus, Priority } from '../domain/task-fields.js';
import type { AcceptanceStatus, AcceptanceSummary, TaskStatus } from '../domain/task-transition.js';
import type { TaskList } from '../task.service.js';

// The answers of the tasks module: TaskSummary and TaskRecord (task.records.ts names them) with their parts, the
// task lists, and the answers of creation and work reports.

export class AcceptanceCountDto {
  @Prop.integer() passed: number;
  @Prop.integer() total: number;
}

export class TaskSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string({ nullable: true }) proposalUuid: string | null;
  @Prop.string() title: string;
  @Prop.string() status: TaskStatus;
  @Prop.string() priority: Priority;
  @Prop.number({ nullable: true }) storyPoints: number | null;
  @Prop.nested(AssigneeDto, { nullable: true }) assignee: AssigneeDto | null;
  @Prop.nested(AcceptanceCountDto, { description: 'Passed and all acceptance criteria' }) acceptance: AcceptanceCountDto;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class CriterionRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() description: string;
  @Prop.boolean() required: boolean;
  @Prop.integer() sortOrder: number;
  @Prop.string({ description: "The assignee's self-check" }) devStatus: MarkStatus;
  @Prop.string({ nullable: true }) devEvidence: string | null;
  @Prop.nested(PersonDto, { nullable: true }) devMarkedBy: PersonDto | null;
  @Prop.string({ nullable: true }) devMarkedAt: string | null;
  @Prop.string({ description: "The verifier's mark" }) status: MarkStatus;
  @Prop.string({ nullable: true }) evidence: string | null;
  @Prop.nested(PersonDto, { nullable: true }) markedBy: PersonDto | null;
  @Prop.string({ nullable: true }) markedAt: string | null;
}

export class AcceptanceSummaryDto implements AcceptanceSummary {
  @Prop.integer() total: number;
  @Prop.integer() required: number;
  @Prop.integer() passed: number;
  @Prop.integer() failed: number;
  @Prop.integer() pending: number;
  @Prop.integer() requiredPassed: number;
  @Prop.integer() requiredFailed: number;
  @Prop.integer() requiredPending: number;
}

export class TaskLinkDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() status: TaskStatus;
}

export class ActiveSessionDto {
  @Prop.string() sessionUuid: string;
  @Prop.string() sessionName: string;
  @Prop.string() agentUuid: string;
  @Prop.string() checkinAt: string;
}

export class TaskRecordDto extends TaskSummaryDto {
  @Prop.string() description: string;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto | null;
  @Prop.list(CriterionRecordDto) acceptanceCriteriaItems: CriterionRecordDto[];
  @Prop.string() acceptanceStatus: AcceptanceStatus;
  @Prop.nested(AcceptanceSummaryDto) acceptanceSummary: AcceptanceSummaryDto;
  @Prop.list(TaskLinkDto, { description: 'Its prerequisites' }) dependsOn: TaskLinkDto[];
  @Prop.list(TaskLinkDto, { description: 'The tasks it is a prerequisite of' }) dependedBy: TaskLinkDto[];
  @Prop.list(ActiveSessionDto) activeSessions: ActiveSessionDto[];
  @Prop.integer() commentCount: number;
  @Prop.list(ReferenceRecordDto) references: ReferenceRecordDto[];
}

/** Claim and assign: the record plus `hints` when there is something to say. */
export class TaskRecordWithHintsDto extends TaskRecordDto {
  @Prop.strings({ optional: true }) hints?: string[];
}

export class TaskPageDto extends PageOf('tasks', TaskSummaryDto) implements TaskList {}

export class CreatedTasksDto {
  @Prop.list(TaskSummaryDto) tasks: TaskSummaryDto[];
}

export class WorkReportResultDto {
  @Prop.nested(TaskRecordDto) task: TaskRecordDto;
  @Prop.string({ description: 'The comment the report was posted as' }) commentUuid: string;
}
