import { MinLength } from 'class-validator';
import { BooleanField, EnumField, ListField, NumberField, TextField, TextListField, UuidField, UuidListField } from '../../../shared/validation/fields.js';
import { ReferenceInputDto } from '../../collaboration/index.js';
import type { Priority } from '../task.entity.js';
import { PRIORITIES } from '../task-input.js';
import { CriterionDto } from './criterion.dto.js';

/**
 * Bodies of the task routes: the inputs of the equivalent tools (tools.md §5.2–§5.8) minus the ids carried by the
 * path. Shapes and limits are checked here; domain rules (blank titles, criteria, dependencies) by the service.
 */
const OPERATIONAL = ['in_progress', 'to_verify'] as const;
const MARKS = ['passed', 'failed', 'pending'] as const;
const SELF_CHECK_MARKS = ['passed', 'failed'] as const;
const STORY_POINTS = { minimum: 0, maximum: 1000 };

export class NewTaskDto {
  @TextField({ maxLength: 200, description: 'Title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, nullable: true, maxLength: 100_000, description: 'Markdown description; @mentions notify' })
  description?: string | null;

  @EnumField(PRIORITIES, { optional: true, nullable: true, description: 'Priority (default medium)' })
  priority?: Priority | null;

  @NumberField({ optional: true, nullable: true, ...STORY_POINTS })
  storyPoints?: number | null;

  @ListField(CriterionDto, { minItems: 1, maxItems: 50, description: 'Acceptance criteria, 1-50 items' })
  acceptanceCriteriaItems: CriterionDto[];

  @TextField({ optional: true, nullable: true, minLength: 1, maxLength: 64, description: 'Batch-local id other items of this call can depend on' })
  @MinLength(1)
  draftUuid?: string | null;

  @TextListField({ optional: true, nullable: true, description: 'draftUuids of other items of this call' })
  dependsOnDraftUuids?: string[] | null;

  @UuidListField({ optional: true, nullable: true, description: 'Existing tasks this one depends on' })
  dependsOnTaskUuids?: string[] | null;

  @ListField(ReferenceInputDto, { optional: true, nullable: true, maxItems: 10, description: 'Up to 10 external links' })
  references?: ReferenceInputDto[] | null;
}

export class CreateTasksDto {
  @UuidField({ optional: true, nullable: true, description: 'An approved proposal of the project the tasks belong to' })
  proposalUuid?: string | null;

  @ListField(NewTaskDto, { minItems: 1, maxItems: 50, description: '1-50 tasks, created all-or-nothing' })
  tasks: NewTaskDto[];
}

export class UpdateTaskDto {
  @EnumField(OPERATIONAL, { optional: true, nullable: true, description: 'Start, submit or pull back (assignee only)' })
  status?: (typeof OPERATIONAL)[number] | null;

  @TextField({ optional: true, maxLength: 200 })
  title?: string;

  @TextField({ optional: true, maxLength: 100_000 })
  description?: string;

  @EnumField(PRIORITIES, { optional: true })
  priority?: Priority;

  @NumberField({ optional: true, nullable: true, ...STORY_POINTS })
  storyPoints?: number | null;

  @ListField(CriterionDto, { optional: true, minItems: 1, maxItems: 50, description: 'Replaces all criteria, discarding their marks' })
  acceptanceCriteriaItems?: CriterionDto[];

  @UuidListField({ optional: true, description: 'Prerequisite tasks to add' })
  addDependsOn?: string[];

  @UuidListField({ optional: true, description: 'Prerequisite tasks to remove' })
  removeDependsOn?: string[];
}

export class AssignTaskDto {
  @EnumField(['user', 'agent'])
  assigneeType: 'user' | 'agent';

  @UuidField({ description: 'A user, or a non-archived agent holding task:write, of the company' })
  assigneeUuid: string;
}

export class SubmitTaskDto {
  @TextField({ optional: true, nullable: true, maxLength: 10_000, description: 'What was done' })
  summary?: string | null;
}

export class ReopenTaskDto {
  @BooleanField({ optional: true, description: 'Reopen even while prerequisites are unresolved (default false)' })
  force?: boolean;
}

export class CloseTaskDto {
  @TextField({ optional: true, nullable: true, maxLength: 2000 })
  reason?: string | null;
}

export class VerificationMarkDto {
  @UuidField({ description: 'A criterion of this task' })
  uuid: string;

  @EnumField(MARKS)
  status: (typeof MARKS)[number];

  @TextField({ optional: true, nullable: true, maxLength: 2000 })
  evidence?: string | null;
}

export class MarkCriteriaDto {
  @ListField(VerificationMarkDto, { minItems: 1, maxItems: 50, description: '1-50 marks' })
  criteria: VerificationMarkDto[];
}

export class SelfCheckMarkDto {
  @UuidField({ description: 'A criterion of this task' })
  uuid: string;

  @EnumField(SELF_CHECK_MARKS)
  devStatus: (typeof SELF_CHECK_MARKS)[number];

  @TextField({ optional: true, nullable: true, maxLength: 2000 })
  devEvidence?: string | null;
}

export class SelfCheckDto {
  @ListField(SelfCheckMarkDto, { minItems: 1, maxItems: 50, description: '1-50 self-check marks' })
  criteria: SelfCheckMarkDto[];
}

export class WorkReportDto {
  @TextField({ minLength: 1, maxLength: 20_000, description: 'The report, stored as a comment by the caller' })
  report: string;

  @EnumField(OPERATIONAL, { optional: true, nullable: true, description: 'Optional status move in the same call' })
  status?: (typeof OPERATIONAL)[number] | null;
}
