import type { PagingInput } from '../../shared/validation/paging.js';
import type { ReferenceInput } from '../collaboration/index.js';
import type { DocumentDraftInput, TaskDraftInput } from './domain/proposal-drafts.js';

/** Plain inputs of the proposal use cases (already schema-checked by the tool/REST edge; rules are re-checked here). */
export interface ListProposalsInput extends PagingInput {
  projectUuid: string;
  status?: string;
}

export interface GetProposalInput {
  proposalUuid: string;
  section?: string;
}

export interface CreateProposalInput {
  projectUuid: string;
  title: string;
  description?: string;
  inputType: string;
  inputUuids: string[];
  references?: ReferenceInput[];
}

export interface EditProposalInput {
  proposalUuid: string;
  title?: string;
  description?: string;
}

export interface ProposalRef {
  proposalUuid: string;
}

export type AddDocumentDraftInput = ProposalRef & DocumentDraftInput;
export type UpdateDocumentDraftInput = ProposalRef & DocumentDraftInput & { draftUuid: string };
export type AddTaskDraftInput = ProposalRef & TaskDraftInput;
export type UpdateTaskDraftInput = ProposalRef & TaskDraftInput & { draftUuid: string };
export type RemoveDraftInput = ProposalRef & { draftUuid: string };

export interface ReviewInput {
  proposalUuid: string;
  reviewNote?: string | null;
}
