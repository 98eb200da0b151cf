import type { Tx } from '../../shared/database/transaction-runner.js';

/* What other modules do to proposals inside their own transactions: an idea move carries them along. */

/** An idea move (domain.md §8) carries these proposals, already locked by the caller, to the target project. */
export async function moveProposalsToProject(tx: Tx, proposalUuids: readonly string[], projectUuid: string): Promise<void> {
  if (!proposalUuids.length) return;
  await tx.manager.query(`UPDATE proposal SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [
    projectUuid,
    tx.actor.companyUuid,
    [...proposalUuids],
  ]);
}
