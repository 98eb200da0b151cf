export { ProposalEntity } from './proposal.entity.js';
export type { ProposalStatus, DocumentDraft, TaskDraft } from './proposal.entity.js';
