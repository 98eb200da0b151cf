export { DocumentEntity } from './document.entity.js';
export type { DocumentType } from './document.entity.js';
