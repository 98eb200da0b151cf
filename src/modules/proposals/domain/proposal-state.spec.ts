import { checkProposalTransition, PROPOSAL_TRANSITIONS, type ProposalTrigger } from './proposal-state.js';

describe('proposal state machine (docs/domain.md §5.1)', () => {
  const allowed: Array<[string, ProposalTrigger, string]> = [
    ['draft', 'submit', 'pending'],
    ['pending', 'approve', 'approved'],
    ['pending', 'reject', 'draft'],
    ['pending', 'close', 'closed'],
    ['approved', 'revoke', 'draft'],
    ['draft', 'delete', 'removed'],
    ['closed', 'delete', 'removed'],
    ['draft', 'edit', 'draft'],
    ['draft', 'add_task_draft', 'draft'],
    ['approved', 'create_report', 'approved'],
  ];

  it.each(allowed)('%s --%s--> %s', (from, trigger, to) => {
    expect(checkProposalTransition(from as never, trigger)).toBe(to);
  });

  it('refuses every other pair with INVALID_STATE in the docs/tool-conventions.md wording', () => {
    const statuses = ['draft', 'pending', 'approved', 'closed'] as const;
    let refusals = 0;
    for (const trigger of Object.keys(PROPOSAL_TRANSITIONS) as ProposalTrigger[]) {
      for (const s of statuses) {
        if (PROPOSAL_TRANSITIONS[trigger].from.includes(s)) continue;
        refusals++;
        expect(() => checkProposalTransition(s, trigger)).toThrow(expect.objectContaining({ code: 'INVALID_STATE', message: expect.stringMatching(new RegExp(`^Proposal is ${s}; .+ requires .+$`)) }));
      }
    }
    expect(refusals).toBe(41);
    expect(() => checkProposalTransition('approved', 'delete')).toThrow('Proposal is approved; delete requires draft or closed');
  });
});
