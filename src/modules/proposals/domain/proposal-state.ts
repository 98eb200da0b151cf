import { InvalidStateError } from '../../../shared/errors/app-error.js';
import type { ProposalStatus } from '../proposal.entity.js';

/**
 * The proposal state machine of docs/domain.md §5.1 as data: for each trigger, the statuses it accepts and where it
 * leads (null = the status stays, `removed` = the row is deleted). Every other (state, trigger) is INVALID_STATE.
 */
export type ProposalTrigger =
  | 'edit'
  | 'add_document_draft'
  | 'update_document_draft'
  | 'remove_document_draft'
  | 'add_task_draft'
  | 'update_task_draft'
  | 'remove_task_draft'
  | 'submit'
  | 'approve'
  | 'reject'
  | 'close'
  | 'revoke'
  | 'delete'
  | 'create_report';

interface Rule {
  from: readonly ProposalStatus[];
  to: ProposalStatus | null | 'removed';
  /** Wording of the INVALID_STATE message: "Proposal is <status>; <op> requires <expected>". */
  op: string;
}

const DRAFT_ONLY = ['draft'] as const;

export const PROPOSAL_TRANSITIONS: Record<ProposalTrigger, Rule> = {
  edit: { from: DRAFT_ONLY, to: null, op: 'edit' },
  add_document_draft: { from: DRAFT_ONLY, to: null, op: 'add a document draft' },
  update_document_draft: { from: DRAFT_ONLY, to: null, op: 'update a document draft' },
  remove_document_draft: { from: DRAFT_ONLY, to: null, op: 'remove a document draft' },
  add_task_draft: { from: DRAFT_ONLY, to: null, op: 'add a task draft' },
  update_task_draft: { from: DRAFT_ONLY, to: null, op: 'update a task draft' },
  remove_task_draft: { from: DRAFT_ONLY, to: null, op: 'remove a task draft' },
  submit: { from: DRAFT_ONLY, to: 'pending', op: 'submit' },
  approve: { from: ['pending'], to: 'approved', op: 'approve' },
  reject: { from: ['pending'], to: 'draft', op: 'reject' },
  close: { from: ['pending'], to: 'closed', op: 'close' },
  revoke: { from: ['approved'], to: 'draft', op: 'revoke' },
  delete: { from: ['draft', 'closed'], to: 'removed', op: 'delete' },
  // Not a transition: a report documents an approved proposal's outcome.
  create_report: { from: ['approved'], to: null, op: 'create a report' },
};

/** Throws INVALID_STATE unless `trigger` is allowed from `status`; returns the status to move to. */
export function checkProposalTransition(status: ProposalStatus, trigger: ProposalTrigger): ProposalStatus | 'removed' {
  const rule = PROPOSAL_TRANSITIONS[trigger];
  if (!rule.from.includes(status)) {
    throw new InvalidStateError(`Proposal is ${status}; ${rule.op} requires ${rule.from.join(' or ')}`);
  }
  return rule.to ?? status;
}
