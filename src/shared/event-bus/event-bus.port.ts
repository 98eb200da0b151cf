import type { BusEventKind, BusEvents, DeliveryMeta } from './events.js';

export type { DeliveryMeta } from './events.js';

export type BusListener<K extends BusEventKind> = (payload: BusEvents[K], meta: DeliveryMeta) => void;

export interface BusStatus {
  /** `disabled` for the in-process bus. */
  state: 'up' | 'down' | 'disabled';
}

/** What an instance can be interested in: one company's change events, or one recipient's notification frames. */
export type BusTopic = { kind: 'change'; companyUuid: string } | { kind: 'notification'; recipientType: 'user' | 'agent'; recipientUuid: string };

/** One holder's interest in a topic (a stream's sequencer, an inbox wait), from `EventBus.interest`. */
export interface BusInterest {
  /**
   * Settles once messages of the topic published from now on reach this instance (with NATS: the subscription is
   * active at the server), or at once while the shared channel is down (the resync on reconnect covers that), and
   * within about a second in any case. Read the log only after it: what committed before is in the log, what
   * commits after arrives on the bus. Never rejects.
   */
  readonly ready: Promise<void>;
  /**
   * True when the instance was already receiving the topic when this interest was taken (another holder, or the
   * linger of an earlier one): a holder that kept state from an earlier interest missed nothing in between.
   */
  readonly continuous: boolean;
  /** Gives the interest back (idempotent); the last one to go starts the topic's linger. */
  release(): void;
}

/**
 * The EventBus port (abstract class = type + DI token). Publishing delivers to this instance's listeners at once
 * and, with a shared channel, to every other instance interested in the topic. It never throws and never blocks a
 * caller.
 *
 * Both adapters deliver on the application's EventEmitter2 (names in `BUS_EVENTS`), so a module reacts with
 * `@OnEvent(BUS_EVENTS.change)`; `subscribe` and `onReconnect` register the same kind of listener by hand. Relayed
 * change and notification messages reach this instance only for topics someone here holds an `interest` in (plus a
 * linger after the last one goes); session messages always (docs/deploy.md "What an instance subscribes to").
 */
export abstract class EventBus {
  /**
   * `position`: the frame's stream position (change and notification frames), null for session messages. `data`: the
   * frame's JSON when the publisher already has it (what it logged), so nobody serializes the payload again.
   */
  abstract publish<K extends BusEventKind>(kind: K, payload: BusEvents[K], position: string | null, data?: string): void;
  /** Returns the unsubscribe function. */
  abstract subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void;
  /** Receive the topic's messages from other instances until the returned interest is released (and its linger). */
  abstract interest(topic: BusTopic): BusInterest;
  abstract status(): BusStatus;
  /** Called whenever the shared channel is (re)connected, the first connect included (streams repair from the log). */
  abstract onReconnect(listener: () => void): () => void;
  abstract close(): Promise<void>;
}
