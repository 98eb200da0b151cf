export type { DocumentEntity } from './document.entity.js';
export { AUTHORED_DOCUMENT_TYPES, DOCUMENT_TYPES, type AuthoredDocumentType, type DocumentType } from './domain/document-types.js';
export { DocumentsModule } from './documents.module.js';
export { DocumentService } from './document.service.js';
export type { DocumentRecord, DocumentSummary } from './document.records.js';
export type { CreateDocumentArgsDto, CreateReportArgsDto, DocumentRefDto, ListDocumentsArgsDto, UpdateDocumentArgsDto } from './dto/document.dto.js';
export {
  createDocumentsFromProposal,
  deleteDocumentsOfRevokedProposal,
  moveDocumentsToProject,
  unlinkDocumentsFromProposal,
  type DocumentOrigin,
} from './document.steps.js';
