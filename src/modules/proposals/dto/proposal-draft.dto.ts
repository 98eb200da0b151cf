import { EnumField, ListField, NumberField, TextField, UuidListField } from '../../../shared/validation/fields.js';
import { CriterionDto } from '../../tasks/index.js';
import { DOCUMENT_DRAFT_TYPES, PRIORITIES } from '../domain/proposal-drafts.js';

/** Bodies of the draft routes (svc_pm_add/update_document_draft, svc_pm_add/update_task_draft). */
export class DocumentDraftDto {
  @EnumField(DOCUMENT_DRAFT_TYPES)
  type: string;

  @TextField({ maxLength: 200 })
  title: string;

  @TextField({ maxLength: 100_000, description: 'Markdown; at least 100 characters to pass validation' })
  content: string;
}

export class UpdateDocumentDraftDto {
  @EnumField(DOCUMENT_DRAFT_TYPES, { optional: true })
  type?: string;

  @TextField({ optional: true, maxLength: 200 })
  title?: string;

  @TextField({ optional: true, maxLength: 100_000 })
  content?: string;
}

export class UpdateTaskDraftDto {
  @TextField({ optional: true, maxLength: 200 })
  title?: string;

  @TextField({ optional: true, maxLength: 100_000 })
  description?: string;

  @EnumField(PRIORITIES, { optional: true, nullable: true })
  priority?: string | null;

  @NumberField({ optional: true, nullable: true, minimum: 0, maximum: 1000 })
  storyPoints?: number | null;

  @ListField(CriterionDto, { optional: true, minItems: 1, maxItems: 50, description: 'Replaces the criteria; 1-50 items' })
  acceptanceCriteriaItems?: CriterionDto[];

  @UuidListField({ optional: true, description: 'Replaces the dependencies; sibling task drafts, no self, no cycle' })
  dependsOnDraftUuids?: string[];
}

export class TaskDraftDto {
  @TextField({ maxLength: 200 })
  title: string;

  @TextField({ optional: true, maxLength: 100_000 })
  description?: string;

  @EnumField(PRIORITIES, { optional: true, nullable: true })
  priority?: string | null;

  @NumberField({ optional: true, nullable: true, minimum: 0, maximum: 1000 })
  storyPoints?: number | null;

  @ListField(CriterionDto, { minItems: 1, maxItems: 50, description: 'Acceptance criteria, 1-50 items' })
  acceptanceCriteriaItems: CriterionDto[];

  @UuidListField({ optional: true, description: 'Sibling task drafts this one depends on' })
  dependsOnDraftUuids?: string[];
}
