import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OnTxEvent, type TxEvents } from '../../shared/events/tx-events.js';
import { ownSession, requireActive } from './session.checks.js';

/**
 * What the session tables do when other modules' mutations touch what they refer to (shared/events/tx-events.ts),
 * inside those mutations' transactions: a task call naming a session, a task closing or being deleted, an agent
 * being archived. The tasks and identity modules dispatch these events; neither imports this module.
 */
@Injectable()
export class SessionReactions {
  /** A call names a session: the caller's own and active (NOT_FOUND / FORBIDDEN / INVALID_STATE otherwise), locked. */
  @OnTxEvent('session.used')
  async onSessionUsed(em: EntityManager, { actor, sessionUuid, operation }: TxEvents['session.used']): Promise<void> {
    const session = await ownSession(em, actor, sessionUuid, true);
    requireActive(session, operation);
    await em.query(`UPDATE agent_session SET last_active_at = now(), updated_at = now() WHERE uuid = $1`, [session.uuid]);
    // Recorded on the call's activities.
    actor.session = { uuid: session.uuid, name: session.name };
  }

  /** A task closes: its open check-ins are checked out (the task's activity lists the sessions). */
  @OnTxEvent('task.closing')
  async onTaskClosing(em: EntityManager, event: TxEvents['task.closing']): Promise<void> {
    const rows: unknown = await em.query(
      `UPDATE session_task_checkin SET checkout_at = now() WHERE task_uuid = $1 AND checkout_at IS NULL RETURNING session_uuid`,
      [event.taskUuid],
    );
    // node-postgres returns [rows, count] for UPDATE … RETURNING through TypeORM.
    const list = (Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0] : rows) as Array<{ session_uuid: string }>;
    event.checkedOutSessions.push(...list.map((r) => r.session_uuid));
  }

  /** A task is deleted: its check-ins are forgotten. */
  @OnTxEvent('task.deleting')
  async onTaskDeleting(em: EntityManager, { taskUuid }: TxEvents['task.deleting']): Promise<void> {
    await em.query(`DELETE FROM session_task_checkin WHERE task_uuid = $1`, [taskUuid]);
  }

  /** An agent is archived (domain.md §8 in docs/architecture.md): its open check-ins checked out, its sessions closed. */
  @OnTxEvent('agent.archiving')
  async onAgentArchiving(em: EntityManager, { agentUuid }: TxEvents['agent.archiving']): Promise<void> {
    await em.query(
      `UPDATE session_task_checkin SET checkout_at = now() WHERE checkout_at IS NULL
         AND session_uuid IN (SELECT uuid FROM agent_session WHERE agent_uuid = $1)`,
      [agentUuid],
    );
    await em.query(`UPDATE agent_session SET status = 'closed', closed_at = now(), updated_at = now() WHERE agent_uuid = $1 AND status = 'active'`, [agentUuid]);
  }
}
