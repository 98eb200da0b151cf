import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, ListField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { MAX_NOTE } from '../../../shared/validation/text-rules.js';
import { MARK_STATUSES, MAX_CRITERIA, MAX_SUMMARY, MAX_WORK_REPORT, OPERATIONAL_STATUSES, SELF_CHECK_STATUSES, type MarkStatus, type OperationalStatus } from '../domain/task-fields.js';
import { CallSessionDto } from './task.dto.js';

/**
 * The task workflow (docs/tool-conventions.md §5.4, §5.6, §5.8; docs/platform.md §9): each route's body, and the equivalent tool's
 * arguments derived from it with the task uuid the path carries.
 */
export class SubmitTaskDto {
  @TextField({ optional: true, maxLength: MAX_SUMMARY, description: 'What was done, at most 10000 characters' })
  summary?: string;
}

export class SubmitTaskArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task, in_progress and assigned to you'), SubmitTaskDto) {}

export class ReopenTaskDto {
  @BooleanField({ optional: true, description: 'Reopen even while prerequisites are not done or closed (default false)' })
  force?: boolean;
}

export class ReopenTaskArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task, in to_verify'), ReopenTaskDto) {}

export class CloseTaskDto {
  @TextField({ optional: true, maxLength: MAX_NOTE, description: 'Why the task will not be finished, at most 2000 characters' })
  reason?: string;
}

export class CloseTaskArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task, in any status but closed'), CloseTaskDto) {}

export class VerificationMarkDto {
  @UuidField({ description: 'A criterion of this task' })
  uuid: string;

  @EnumField(MARK_STATUSES, { description: 'Verification result; pending clears the mark' })
  status: MarkStatus;

  @TextField({ optional: true, maxLength: MAX_NOTE, description: 'Evidence, at most 2000 characters' })
  evidence?: string;
}

export class MarkCriteriaDto {
  @ListField(VerificationMarkDto, { minItems: 1, maxItems: MAX_CRITERIA, description: '1-50 criteria marks' })
  criteria: VerificationMarkDto[];
}

export class MarkCriteriaArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task, not closed'), MarkCriteriaDto) {}

export class SelfCheckMarkDto {
  @UuidField({ description: 'A criterion of this task' })
  uuid: string;

  @EnumField(SELF_CHECK_STATUSES, { description: 'Your own result' })
  devStatus: (typeof SELF_CHECK_STATUSES)[number];

  @TextField({ optional: true, maxLength: MAX_NOTE, description: 'Evidence, at most 2000 characters' })
  devEvidence?: string;
}

export class SelfCheckDto {
  @ListField(SelfCheckMarkDto, { minItems: 1, maxItems: MAX_CRITERIA, description: '1-50 criteria marks' })
  criteria: SelfCheckMarkDto[];
}

export class SelfCheckArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task assigned to you'), SelfCheckDto) {}

export class WorkReportDto {
  @TextField({ minLength: 1, maxLength: MAX_WORK_REPORT, description: 'Progress report, 1-20000 characters, stored as your comment on the task' })
  report: string;

  @EnumField(OPERATIONAL_STATUSES, { optional: true, description: 'Also move the task: in_progress (from assigned) or to_verify (from in_progress)' })
  status?: OperationalStatus;
}

export class WorkReportArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task assigned to you'), WorkReportDto, CallSessionDto) {}

/** REST assigns to a user or an agent; svc_pm_assign_task only to an agent. */
export class AssignTaskDto {
  @EnumField(['user', 'agent'], { description: 'Who is assigned' })
  assigneeType: 'user' | 'agent';

  @UuidField({ description: 'A user, or a non-archived agent holding task:write, of the company' })
  assigneeUuid: string;
}

export class AssignTaskArgsDto extends UuidArgs('taskUuid', 'The task, open or assigned') {
  @UuidField({ description: 'A non-archived agent of your company that holds task:write' })
  agentUuid: string;
}
