import type { BusEventKind, BusEvents } from './events.js';
import type { BusListener, DeliveryMeta } from './event-bus.port.js';

/** Listener registry shared by both adapters. A throwing listener never affects the others or the publisher. */
export class LocalListeners {
  private readonly listeners = new Map<BusEventKind, Set<BusListener<BusEventKind>>>();

  constructor(private readonly onListenerError: (err: unknown) => void) {}

  add<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void {
    let set = this.listeners.get(kind);
    if (!set) {
      set = new Set();
      this.listeners.set(kind, set);
    }
    const l = listener as unknown as BusListener<BusEventKind>;
    set.add(l);
    return () => {
      set.delete(l);
    };
  }

  deliver<K extends BusEventKind>(kind: K, payload: BusEvents[K], meta: DeliveryMeta): void {
    const set = this.listeners.get(kind);
    if (!set) return;
    for (const l of set) {
      try {
        l(payload, meta);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  count(kind?: BusEventKind): number {
    if (kind) return this.listeners.get(kind)?.size ?? 0;
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}
