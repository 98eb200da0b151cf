import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OnTxEvent, type TxEvents } from '../../shared/events/tx-events.js';
import { ownSession, requireActive } from './session.checks.js';
import { SessionRepository } from './session.repository.js';

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
    const sessions = new SessionRepository(em);
    const session = await ownSession(sessions, actor, sessionUuid, true);
    requireActive(session, operation);
    await sessions.markUsed(session.uuid);
    // Recorded on the call's activities.
    actor.session = { uuid: session.uuid, name: session.name };
  }

  /** A task closes: its open check-ins are checked out (the task's activity lists the sessions). */
  @OnTxEvent('task.closing')
  async onTaskClosing(em: EntityManager, event: TxEvents['task.closing']): Promise<void> {
    event.checkedOutSessions.push(...(await new SessionRepository(em).checkoutTask(event.taskUuid)));
  }

  /** A task is deleted: its check-ins are forgotten. */
  @OnTxEvent('task.deleting')
  async onTaskDeleting(em: EntityManager, { taskUuid }: TxEvents['task.deleting']): Promise<void> {
    await new SessionRepository(em).deleteCheckinsOfTask(taskUuid);
  }

  /** An agent is archived (docs/domain.md §8 in docs/architecture.md): its open check-ins checked out, its sessions closed. */
  @OnTxEvent('agent.archiving')
  async onAgentArchiving(em: EntityManager, { agentUuid }: TxEvents['agent.archiving']): Promise<void> {
    await new SessionRepository(em).closeAllOfAgent(agentUuid);
  }
}
