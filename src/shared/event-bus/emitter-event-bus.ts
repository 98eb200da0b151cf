import { EventEmitter2 } from '@nestjs/event-emitter';
import { BUS_EVENTS, type BusEventKind, type BusEvents, type DeliveryMeta } from './events.js';
import { EventBus, type BusListener } from './event-bus.port.js';

/** Listeners are one per reacting provider, bounded by the code rather than by traffic: no leak warning needed. */
export const EMITTER_DEFAULTS = { maxListeners: 0 } as const;

/**
 * What both adapters share: delivery to this instance's listeners on the EventEmitter2 that `@OnEvent` handlers
 * are registered on. A throwing `subscribe` listener never affects the others or the publisher (`@OnEvent`
 * handlers are guarded by the event-emitter module itself).
 */
export abstract class EmitterEventBus extends EventBus {
  constructor(
    readonly emitter: EventEmitter2,
    private readonly onListenerError: (err: unknown) => void,
  ) {
    super();
  }

  protected deliver<K extends BusEventKind>(kind: K, payload: BusEvents[K], meta: DeliveryMeta): void {
    this.emitter.emit(BUS_EVENTS[kind], payload, meta);
  }

  protected resync(): void {
    this.emitter.emit(BUS_EVENTS.resync);
  }

  subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void {
    return this.listen(BUS_EVENTS[kind], listener as (...args: unknown[]) => void);
  }

  onReconnect(listener: () => void): () => void {
    return this.listen(BUS_EVENTS.resync, listener);
  }

  private listen(event: string, listener: (...args: unknown[]) => void): () => void {
    const guarded = (...args: unknown[]): void => {
      try {
        listener(...args);
      } catch (err) {
        this.onListenerError(err);
      }
    };
    this.emitter.on(event, guarded);
    return () => {
      this.emitter.off(event, guarded);
    };
  }
}
