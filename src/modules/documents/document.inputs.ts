import type { PagingInput } from '../../shared/validation/paging.js';

/** Plain inputs of the document use cases (schema-checked at the edge; domain rules are re-checked here). */
export interface ListDocumentsInput extends PagingInput {
  projectUuid: string;
  type?: string;
}

export interface DocumentRef {
  documentUuid: string;
}

export interface CreateDocumentInput {
  projectUuid: string;
  type: string;
  title: string;
  content?: string;
  proposalUuid?: string | null;
}

export interface UpdateDocumentInput {
  documentUuid: string;
  title?: string;
  content?: string;
}

export interface CreateReportInput {
  proposalUuid: string;
  title: string;
  content: string;
  force?: boolean;
}
