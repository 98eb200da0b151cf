import type { BusEventKind, BusEvents, DeliveryMeta } from './events.js';

export type { DeliveryMeta } from './events.js';

export type BusListener<K extends BusEventKind> = (payload: BusEvents[K], meta: DeliveryMeta) => void;

export interface BusStatus {
  /** `disabled` for the in-process bus. */
  state: 'up' | 'down' | 'disabled';
}

/**
 * The EventBus port (abstract class = type + DI token). Publishing delivers to this instance's listeners at once
 * and, with a shared channel, to every other instance. It never throws and never blocks a caller.
 *
 * Both adapters deliver on the application's EventEmitter2 (names in `BUS_EVENTS`), so a module reacts with
 * `@OnEvent(BUS_EVENTS.change)`; `subscribe` and `onReconnect` register the same kind of listener by hand.
 */
export abstract class EventBus {
  /**
   * `position`: the frame's stream position (change and notification frames), null for session messages. `data`: the
   * frame's JSON when the publisher already has it (what it logged), so nobody serializes the payload again.
   */
  abstract publish<K extends BusEventKind>(kind: K, payload: BusEvents[K], position: string | null, data?: string): void;
  /** Returns the unsubscribe function. */
  abstract subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void;
  abstract status(): BusStatus;
  /** Called whenever the shared channel is (re)connected, the first connect included (streams repair from the log). */
  abstract onReconnect(listener: () => void): () => void;
  abstract close(): Promise<void>;
}
