import { OnEvent, type EventEmitter2 } from '@nestjs/event-emitter';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../auth/actor.js';

/**
 * In-transaction domain events (docs/architecture.md "Events"): what a module says happened inside its mutation, for
 * the module that owns the rows that must change with it. Dispatched inside the mutation's transaction and awaited:
 * the owner reacts with the transaction's manager, so its writes commit or roll back with the mutation, and a
 * refusal it throws (a check) fails the mutation. So a module reaches another's tables without importing it.
 */
export interface TxEvents {
  /** A call names one of the caller's agent sessions: it must be the caller's and active; it counts as a heartbeat. */
  'session.used': { actor: Actor; sessionUuid: string; operation: string };
  /** A task is closing: its open check-ins are checked out; the handler lists the sessions it checked out. */
  'task.closing': { taskUuid: string; checkedOutSessions: string[] };
  /** A task is being deleted: whatever refers to it by check-in goes. */
  'task.deleting': { taskUuid: string };
  /** An agent is being archived: its open check-ins are checked out and its active sessions closed. */
  'agent.archiving': { agentUuid: string };
}

export type TxEventName = keyof TxEvents;

const eventName = (name: TxEventName): string => `tx.${name}`;

/**
 * Dispatches one in-transaction event and waits for its handlers. Every one needs a handler: without one a write or a
 * check would be silently skipped, so the mutation is refused instead.
 */
export async function dispatchTxEvent<K extends TxEventName>(events: EventEmitter2, em: EntityManager, name: K, payload: TxEvents[K]): Promise<void> {
  const event = eventName(name);
  if (!events.listenerCount(event)) throw new Error(`no handler for ${event}`);
  await events.emitAsync(event, em, payload);
}

/** Marks `(em, payload)` handler of an in-transaction event; its errors are not suppressed (they fail the mutation). */
export function OnTxEvent(name: TxEventName): MethodDecorator {
  return OnEvent(eventName(name), { suppressErrors: false });
}
