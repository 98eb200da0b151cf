import { IntersectionType } from '@nestjs/swagger';
import { MinLength } from 'class-validator';
import { EnumField, ListField, NumberField, TextField, TextListField, UuidArgs, UuidField, UuidListField } from '../../../shared/validation/fields.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { MAX_REFERENCES_ON_CREATE, ReferenceInputDto } from '../../collaboration/index.js';
import { MAX_CRITERIA, MAX_DRAFT_ID_LENGTH, MAX_TASKS_PER_CALL, OPERATIONAL_STATUSES, PRIORITIES, STORY_POINTS, type OperationalStatus, type Priority } from '../domain/task-fields.js';
import { CriterionDto } from './criterion.dto.js';

/**
 * Creation and edits (docs/tool-conventions.md §5.2, docs/platform.md §9): each route's body, and the equivalent tool's arguments derived
 * from it (plus the ids the path carries). Shapes and limits are checked here; domain rules (blank titles, criteria,
 * dependencies) by the service.
 */
export class NewTaskDto {
  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Task title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'Markdown description; @mentions notify' })
  description?: string;

  @EnumField(PRIORITIES, { optional: true, description: 'Priority (default medium)' })
  priority?: Priority;

  @NumberField({ optional: true, ...STORY_POINTS, description: 'Estimate, 0-1000' })
  storyPoints?: number;

  @ListField(CriterionDto, { minItems: 1, maxItems: MAX_CRITERIA, description: 'Acceptance criteria, 1-50 items, at least one not blank' })
  acceptanceCriteriaItems: CriterionDto[];

  @TextField({ optional: true, minLength: 1, maxLength: MAX_DRAFT_ID_LENGTH, description: 'Batch-local id, unique in this call, that other items can depend on' })
  @MinLength(1)
  draftUuid?: string;

  // The service names an unknown or empty draft id on REST.
  @TextListField({
    optional: true,
    limits: 'service',
    minLength: 1,
    maxLength: MAX_DRAFT_ID_LENGTH,
    description: 'draftUuids of other items of this call that must finish first',
  })
  dependsOnDraftUuids?: string[];

  @UuidListField({ optional: true, description: 'Existing tasks of the project that must finish first' })
  dependsOnTaskUuids?: string[];

  @ListField(ReferenceInputDto, { optional: true, maxItems: MAX_REFERENCES_ON_CREATE, description: 'Up to 10 external links to attach' })
  references?: ReferenceInputDto[];
}

export class CreateTasksDto {
  @UuidField({ optional: true, description: 'An approved proposal of the same project the tasks belong to' })
  proposalUuid?: string;

  @ListField(NewTaskDto, { minItems: 1, maxItems: MAX_TASKS_PER_CALL, description: '1-50 tasks, created all or nothing, returned in input order' })
  tasks: NewTaskDto[];
}

export class CreateTasksArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project to create the tasks in'), CreateTasksDto) {}

export class UpdateTaskDto {
  @EnumField(OPERATIONAL_STATUSES, {
    optional: true,
    description: 'Assignee only: in_progress (from assigned or to_verify) or to_verify (from in_progress)',
  })
  status?: OperationalStatus;

  @TextField({ optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' })
  title?: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'New description' })
  description?: string;

  @EnumField(PRIORITIES, { optional: true, description: 'New priority' })
  priority?: Priority;

  @NumberField({ optional: true, nullable: true, ...STORY_POINTS, description: 'New estimate 0-1000, or null to clear it' })
  storyPoints?: number | null;

  @ListField(CriterionDto, { optional: true, minItems: 1, maxItems: MAX_CRITERIA, description: 'Replaces every criterion and discards their marks; 1-50 items' })
  acceptanceCriteriaItems?: CriterionDto[];

  @UuidListField({ optional: true, description: 'Tasks of the same project this task now depends on' })
  addDependsOn?: string[];

  @UuidListField({ optional: true, description: 'Prerequisites to remove' })
  removeDependsOn?: string[];
}

/** A tool-only argument: the caller's session, recorded on the activity and counted as a heartbeat. */
export class CallSessionDto {
  @UuidField({ optional: true, description: 'Your active session; recorded on the activity, counts as a heartbeat' })
  sessionUuid?: string;
}

export class UpdateTaskArgsDto extends IntersectionType(UuidArgs('taskUuid', 'The task'), UpdateTaskDto, CallSessionDto) {}
