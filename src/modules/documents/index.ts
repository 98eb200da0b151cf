export type { DocumentEntity, DocumentType } from './document.entity.js';
export { DocumentsModule } from './documents.module.js';
export { DocumentService } from './document.service.js';
export type { DocumentRecord, DocumentSummary } from './document.records.js';
export type * from './document.inputs.js';
export {
  createDocumentsFromProposal,
  deleteDocumentsOfRevokedProposal,
  moveDocumentsToProject,
  unlinkDocumentsFromProposal,
  type DocumentOrigin,
} from './document.steps.js';
