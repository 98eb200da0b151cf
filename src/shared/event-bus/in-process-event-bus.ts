import type { BusEventKind, BusEvents } from './events.js';
import { EventBus, type BusListener, type BusStatus } from './event-bus.port.js';
import { LocalListeners } from './local-listeners.js';

/** Single-instance adapter: an in-memory listener registry. */
export class InProcessEventBus extends EventBus {
  private readonly local: LocalListeners;

  constructor(onListenerError: (err: unknown) => void = () => undefined) {
    super();
    this.local = new LocalListeners(onListenerError);
  }

  publish<K extends BusEventKind>(kind: K, payload: BusEvents[K]): void {
    this.local.deliver(kind, payload, { relayed: false });
  }

  subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void {
    return this.local.add(kind, listener);
  }

  status(): BusStatus {
    return { state: 'disabled' };
  }

  onReconnect(): () => void {
    return () => undefined;
  }

  listenerCount(kind?: BusEventKind): number {
    return this.local.count(kind);
  }

  async close(): Promise<void> {}
}
