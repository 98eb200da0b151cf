import { EventEmitter2 } from '@nestjs/event-emitter';
import type { BusEventKind, BusEvents } from './events.js';
import type { BusStatus } from './event-bus.port.js';
import { EMITTER_DEFAULTS, EmitterEventBus } from './emitter-event-bus.js';

/** Single-instance adapter: publishing is an emit on the application's EventEmitter2. */
export class InProcessEventBus extends EmitterEventBus {
  constructor(onListenerError: (err: unknown) => void = () => undefined, emitter = new EventEmitter2(EMITTER_DEFAULTS)) {
    super(emitter, onListenerError);
  }

  publish<K extends BusEventKind>(kind: K, payload: BusEvents[K], position: string | null, data?: string): void {
    this.deliver(kind, payload, { relayed: false, position, data });
  }

  status(): BusStatus {
    return { state: 'disabled' };
  }

  async close(): Promise<void> {}
}
