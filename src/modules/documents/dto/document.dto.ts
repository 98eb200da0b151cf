import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { AUTHORED_DOCUMENT_TYPES, DOCUMENT_TYPES, type AuthoredDocumentType, type DocumentType } from '../domain/document-types.js';

/**
 * Inputs of the document tools (docs/tool-conventions.md §5.1, §5.7, §5.8) and routes (docs/platform.md §9): a tool's arguments are the
 * route's body (or query) plus the ids its path carries. Blank titles are refused by the service after trimming.
 */
export class DocumentRefDto extends UuidArgs('documentUuid', 'The document') {}

class DocumentTypeFilterDto {
  @EnumField(DOCUMENT_TYPES, { optional: true, description: 'Only documents of this type' })
  type?: DocumentType;
}

export class ListDocumentsArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project'), DocumentTypeFilterDto, PagingArgsDto) {}
export class ListDocumentsQuery extends IntersectionType(DocumentTypeFilterDto, PagingQueryDto) {}

export class CreateDocumentDto {
  @EnumField(AUTHORED_DOCUMENT_TYPES, { description: 'Document type (reports are written with svc_create_report)' })
  type: AuthoredDocumentType;

  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Document title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'Markdown content (default empty)' })
  content?: string;

  @UuidField({ optional: true, description: 'A proposal of the same project to link the document to' })
  proposalUuid?: string;
}

export class CreateDocumentArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project the document belongs to'), CreateDocumentDto) {}

export class UpdateDocumentDto {
  @TextField({ optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' })
  title?: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'New markdown content' })
  content?: string;
}

export class UpdateDocumentArgsDto extends IntersectionType(DocumentRefDto, UpdateDocumentDto) {}

export class CreateReportDto {
  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Report title, 1-200 characters' })
  title: string;

  @TextField({ minLength: 1, maxLength: MAX_LONG_TEXT, description: 'Markdown; expected sections Summary, Decisions, Follow-ups' })
  content: string;

  @BooleanField({ optional: true, description: 'Add another report when one already exists (default false)' })
  force?: boolean;
}

export class CreateReportArgsDto extends IntersectionType(UuidArgs('proposalUuid', 'The approved proposal the report is about'), CreateReportDto) {}
