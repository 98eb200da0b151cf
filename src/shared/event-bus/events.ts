import type { Actor } from '../auth/actor.js';
import type { AnyDomainEvent } from '../events/domain-events.js';

/**
 * The typed catalogue of everything emitted on the application's EventEmitter2 (`@nestjs/event-emitter`): the bus
 * events, which also cross instances, and the local mutation events. A wrong payload fails to compile.
 */
export type EntityType = 'task' | 'idea' | 'proposal' | 'document';
export type ChangeAction = 'created' | 'updated' | 'deleted';

/** docs/platform.md §6.1: exactly these five fields, nothing else, ever. */
export interface RealtimeEvent {
  companyUuid: string;
  projectUuid: string;
  entityType: EntityType;
  entityUuid: string;
  action: ChangeAction;
}

export interface NewNotificationFrame {
  type: 'new_notification';
  notificationUuid: string;
  unreadCount: number;
  action: string;
  actorName: string;
  entityTitle: string;
  entityType: EntityType;
  entityUuid: string;
  projectUuid: string;
}

export interface CountUpdateFrame {
  type: 'count_update';
  unreadCount: number;
}

export type NotificationFrame = NewNotificationFrame | CountUpdateFrame;

/** A notification frame addressed to one recipient (subject `<prefix>.notify.<type>.<uuid>`). */
export interface NotificationMessage {
  recipientType: 'user' | 'agent';
  recipientUuid: string;
  frame: NotificationFrame;
}

/** A user session that ended (logout): its streams end on every instance (subject `<prefix>.session`). */
export interface SessionEnded {
  sessionUuid: string;
}

/** What the EventBus carries (and relays between instances). */
export interface BusEvents {
  change: RealtimeEvent;
  notification: NotificationMessage;
  session: SessionEnded;
}

export type BusEventKind = keyof BusEvents;

export interface DeliveryMeta {
  /** True when the message came from another instance over the shared channel. */
  relayed: boolean;
  /**
   * The frame's stream position (`<epoch>-<n>`, docs/platform.md §6.2): per company for a change, per recipient for a
   * notification frame; null for session messages.
   */
  position: string | null;
  /**
   * The frame's `data:` JSON, when the publisher already serialized it (the writing transaction logs it): the streams
   * use it as it is instead of serializing the payload again. Absent on relayed messages.
   */
  data?: string;
}

/**
 * EventEmitter2 names of the bus events. Listeners (`@OnEvent(BUS_EVENTS.change)`) receive `(payload, meta)`:
 * `change` → `(RealtimeEvent, DeliveryMeta)`, `notification` → `(NotificationMessage, DeliveryMeta)`, `session` →
 * `(SessionEnded, DeliveryMeta)`; `resync` (no arguments) is emitted whenever the shared channel is (re)connected,
 * the first connect included, so streams read what they may have missed from the log.
 * Relayed messages (`meta.relayed`) are only forwarded to open streams: they never cause writes.
 */
export const BUS_EVENTS = {
  change: 'bus.change',
  notification: 'bus.notification',
  session: 'bus.session',
  resync: 'bus.resync',
} as const satisfies Record<BusEventKind | 'resync', string>;

/** The JSON of a change frame: exactly the five contract fields, in contract order, whatever the object carries. */
export function changeJson(e: RealtimeEvent): string {
  return JSON.stringify({ companyUuid: e.companyUuid, projectUuid: e.projectUuid, entityType: e.entityType, entityUuid: e.entityUuid, action: e.action });
}

// ---- Local mutation events: never relayed to other instances. ----

/** A mutation once committed: who did it and its domain events (shared/events/domain-events.ts), in order. */
export interface MutationCommitted {
  actor: Actor;
  events: AnyDomainEvent[];
}

/**
 * EventEmitter2 names of the mutation events.
 * - `beforeCommit` (payload: the `Tx`): emitted with `emitAsync` inside the transaction, after the mutation's work,
 *   when it recorded domain events; the owner of the audit tables (activity, mention) writes them there, so they
 *   commit or roll back with the mutation. Its handler must not suppress errors (`@OnEvent(…, { suppressErrors:
 *   false })`): a failure rolls the mutation back.
 * - `committed` (payload: `MutationCommitted`): emitted after commit, before the call returns, once per mutation that
 *   recorded domain events, and awaited; a rollback emits nothing. Handler errors are caught and logged.
 */
export const MUTATION_EVENTS = {
  beforeCommit: 'mutation.before-commit',
  committed: 'mutation.committed',
} as const;
