import type { Tx } from '../../shared/database/transaction-runner.js';
import { ProposalRepository } from './proposal.repository.js';

/* What other modules do to proposals inside their own transactions: an idea move carries them along. */

/** An idea move (docs/domain.md §8) carries these proposals, already locked by the caller, to the target project. */
export async function moveProposalsToProject(tx: Tx, proposalUuids: readonly string[], projectUuid: string): Promise<void> {
  if (!proposalUuids.length) return;
  await new ProposalRepository(tx.manager).moveToProject(tx.actor.companyUuid, proposalUuids, projectUuid);
}
