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
  abstract publish<K extends BusEventKind>(kind: K, payload: BusEvents[K]): void;
  /** Returns the unsubscribe function. */
  abstract subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void;
  abstract status(): BusStatus;
  /** Called when the shared channel comes back after a loss (streams end so browsers resync). */
  abstract onReconnect(listener: () => void): () => void;
  abstract close(): Promise<void>;
}
