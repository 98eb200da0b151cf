import { BooleanField, EnumField, TextField, UuidField } from '../../../shared/validation/fields.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import type { DocumentType } from '../document.entity.js';

/** Queries and bodies of the document routes (svc_get_documents, svc_pm_create/update_document, svc_create_report). */
const TYPES: readonly DocumentType[] = ['prd', 'tech_design', 'adr', 'spec', 'guide', 'report'];
/** Reports are written only through the proposal's report route. */
const AUTHORED_TYPES: readonly DocumentType[] = ['prd', 'tech_design', 'adr', 'spec', 'guide'];

export class ListDocumentsQuery extends PagingQueryDto {
  @EnumField(TYPES, { optional: true, description: 'Only documents of this type' })
  type?: DocumentType;
}

export class CreateDocumentDto {
  @EnumField(AUTHORED_TYPES)
  type: string;

  @TextField({ maxLength: 200 })
  title: string;

  @TextField({ optional: true, maxLength: 100_000, description: 'Markdown (default empty)' })
  content?: string;

  @UuidField({ optional: true, nullable: true, description: 'A proposal of the same project to link' })
  proposalUuid?: string | null;
}

export class UpdateDocumentDto {
  @TextField({ optional: true, maxLength: 200 })
  title?: string;

  @TextField({ optional: true, maxLength: 100_000 })
  content?: string;
}

export class CreateReportDto {
  @TextField({ maxLength: 200 })
  title: string;

  @TextField({ minLength: 1, maxLength: 100_000, description: 'Markdown; expected sections Summary, Decisions, Follow-ups' })
  content: string;

  @BooleanField({ optional: true, description: 'Add a report although one exists (default false)' })
  force?: boolean;
}
