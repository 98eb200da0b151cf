import { IntersectionType } from '@nestjs/swagger';
import { EnumField, ListField, NumberField, TextField, UuidArgs, UuidListField } from '../../../shared/validation/fields.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { AUTHORED_DOCUMENT_TYPES } from '../../documents/index.js';
import { CriterionDto, MAX_CRITERIA, PRIORITIES, STORY_POINTS, type Priority } from '../../tasks/index.js';
import { MAX_TASK_DRAFTS } from '../domain/proposal-drafts.js';
import type { DocumentDraftType } from '../proposal.entity.js';
import { ProposalRefDto } from './proposal.dto.js';

/**
 * The draft tools (svc_pm_add/update/remove_document_draft, …_task_draft) and routes: each route's body, and the
 * tool's arguments derived from it with the proposal (and draft) the path carries.
 */
export class DraftRefDto extends UuidArgs('draftUuid', 'A draft of this proposal (its draftUuid)') {}
export class DraftArgsDto extends IntersectionType(ProposalRefDto, DraftRefDto) {}

const CRITERIA = { minItems: 1, maxItems: MAX_CRITERIA, description: 'Acceptance criteria, 1-50 items, at least one not blank' };
const DEPENDENCIES = { optional: true, maxItems: MAX_TASK_DRAFTS } as const;

export class DocumentDraftDto {
  @EnumField(AUTHORED_DOCUMENT_TYPES, { description: 'Document type' })
  type: DocumentDraftType;

  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Document title, 1-200 characters' })
  title: string;

  @TextField({ maxLength: MAX_LONG_TEXT, description: 'Markdown content; submission needs at least 100' })
  content: string;
}

export class DocumentDraftArgsDto extends IntersectionType(ProposalRefDto, DocumentDraftDto) {}

export class UpdateDocumentDraftDto {
  @EnumField(AUTHORED_DOCUMENT_TYPES, { optional: true, description: 'New document type' })
  type?: DocumentDraftType;

  @TextField({ optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' })
  title?: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'New markdown content' })
  content?: string;
}

export class UpdateDocumentDraftArgsDto extends IntersectionType(DraftArgsDto, UpdateDocumentDraftDto) {}

export class TaskDraftDto {
  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Task title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'Task description' })
  description?: string;

  @EnumField(PRIORITIES, { optional: true, description: 'Priority (default medium)' })
  priority?: Priority;

  @NumberField({ optional: true, ...STORY_POINTS, description: 'Estimate, 0-1000' })
  storyPoints?: number;

  @ListField(CriterionDto, CRITERIA)
  acceptanceCriteriaItems: CriterionDto[];

  @UuidListField({ ...DEPENDENCIES, description: 'Task drafts of this proposal that must be finished first' })
  dependsOnDraftUuids?: string[];
}

export class TaskDraftArgsDto extends IntersectionType(ProposalRefDto, TaskDraftDto) {}

export class UpdateTaskDraftDto {
  @TextField({ optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' })
  title?: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'New description' })
  description?: string;

  // null: no priority of its own (the task gets the default, medium, on approval).
  @EnumField(PRIORITIES, { optional: true, nullable: true, description: 'New priority, or null for the default' })
  priority?: Priority | null;

  @NumberField({ optional: true, nullable: true, ...STORY_POINTS, description: 'New estimate, 0-1000, or null to clear it' })
  storyPoints?: number | null;

  @ListField(CriterionDto, { ...CRITERIA, optional: true })
  acceptanceCriteriaItems?: CriterionDto[];

  @UuidListField({ ...DEPENDENCIES, description: 'Replaces the dependencies; sibling task drafts only, no self, no cycle' })
  dependsOnDraftUuids?: string[];
}

export class UpdateTaskDraftArgsDto extends IntersectionType(DraftArgsDto, UpdateTaskDraftDto) {}
