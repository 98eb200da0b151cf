export const PROPOSAL_STATUSES = ['draft', 'pending', 'approved', 'closed'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
