import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { findInCompany } from '../../shared/database/tenant.js';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { ForbiddenError, InvalidStateError, NotFoundError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { AgentSessionEntity } from './session.entity.js';

/*
 * The session tables' writes that other modules need inside their own transactions: task transitions (tasks) and
 * agent archival (identity). Plain functions over the caller's transaction and nothing but the kernel, because
 * the sessions service builds on the tasks module (a check-in claims its task) and identity sits below both.
 */

/** NOT_FOUND for a missing or foreign session, FORBIDDEN for another agent's. */
export async function ownSession(em: EntityManager, actor: Actor, sessionUuid: string, lock = false): Promise<AgentSessionEntity> {
  if (!isUuid(sessionUuid)) throw new NotFoundError('Session');
  const session = await findInCompany(em, AgentSessionEntity, sessionUuid, actor.companyUuid, 'Session', lock);
  if (actor.type !== 'agent' || session.agentUuid !== actor.uuid) throw new ForbiddenError('Session belongs to another agent');
  return session;
}

export function requireActive(session: Pick<AgentSessionEntity, 'status'>, operation: string): void {
  if (session.status !== 'active') throw new InvalidStateError(`Session is ${session.status}; ${operation} requires active`);
}

/**
 * A `sessionUuid` named on a task call (tools.md §5.2 svc_update_task): the caller's own active session, locked. It
 * counts as a heartbeat and is recorded on the call's activities (`tx.actor.session`).
 */
export async function useSessionForCall(tx: Tx, sessionUuid: string, operation: string): Promise<void> {
  const session = await ownSession(tx.manager, tx.actor, sessionUuid, true);
  requireActive(session, operation);
  await tx.manager.query(`UPDATE agent_session SET last_active_at = now(), updated_at = now() WHERE uuid = $1`, [session.uuid]);
  tx.actor.session = { uuid: session.uuid, name: session.name };
}

/** Checks out every open check-in of a task (it was closed); returns the sessions checked out. */
export async function checkOutTaskCheckins(tx: Tx, taskUuid: string): Promise<string[]> {
  const rows: Array<{ session_uuid: string }> = await tx.manager.query(
    `UPDATE session_task_checkin SET checkout_at = now() WHERE task_uuid = $1 AND checkout_at IS NULL RETURNING session_uuid`,
    [taskUuid],
  );
  // node-postgres returns [rows, count] for UPDATE … RETURNING through TypeORM.
  const list = Array.isArray(rows[0]) ? (rows[0] as unknown as Array<{ session_uuid: string }>) : rows;
  return list.map((r) => r.session_uuid);
}

/** Forgets every check-in of a task that is being deleted. */
export async function deleteTaskCheckins(tx: Tx, taskUuid: string): Promise<void> {
  await tx.manager.query(`DELETE FROM session_task_checkin WHERE task_uuid = $1`, [taskUuid]);
}

/** Agent archival (domain.md §8): its open check-ins are checked out and its active sessions closed. */
export async function closeAgentSessions(em: EntityManager, agentUuid: string): Promise<void> {
  // Agent sessions arrive with the domain migrations: without their table there is nothing to close.
  const [table]: Array<{ exists: boolean }> = await em.query(`SELECT to_regclass('agent_session') IS NOT NULL AS exists`);
  if (!table?.exists) return;
  await em.query(
    `UPDATE session_task_checkin SET checkout_at = now() WHERE checkout_at IS NULL
       AND session_uuid IN (SELECT uuid FROM agent_session WHERE agent_uuid = $1)`,
    [agentUuid],
  );
  await em.query(`UPDATE agent_session SET status = 'closed', closed_at = now(), updated_at = now() WHERE agent_uuid = $1 AND status = 'active'`, [agentUuid]);
}
