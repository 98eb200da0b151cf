export const DOCUMENT_TYPES = ['prd', 'tech_design', 'adr', 'spec', 'guide', 'report'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/** Every type but `report`: reports are written only as a proposal's completion report (svc_create_report). */
export const AUTHORED_DOCUMENT_TYPES = ['prd', 'tech_design', 'adr', 'spec', 'guide'] as const;
export type AuthoredDocumentType = (typeof AUTHORED_DOCUMENT_TYPES)[number];
