import { EventEmitter2 } from '@nestjs/event-emitter';
import type { BusEventKind, BusEvents } from './events.js';
import type { BusInterest, BusStatus, BusTopic } from './event-bus.port.js';
import { EMITTER_DEFAULTS, EmitterEventBus } from './emitter-event-bus.js';

/** Everything is local: every topic is always received, so an interest is ready at once and costs nothing. */
const LOCAL_INTEREST: BusInterest = { ready: Promise.resolve(), continuous: true, release: () => undefined };

/** Single-instance adapter: publishing is an emit on the application's EventEmitter2. */
export class InProcessEventBus extends EmitterEventBus {
  constructor(onListenerError: (err: unknown) => void = () => undefined, emitter = new EventEmitter2(EMITTER_DEFAULTS)) {
    super(emitter, onListenerError);
  }

  publish<K extends BusEventKind>(kind: K, payload: BusEvents[K], position: string | null, data?: string): void {
    this.deliver(kind, payload, { relayed: false, position, data });
  }

  interest(_topic: BusTopic): BusInterest {
    return LOCAL_INTEREST;
  }

  status(): BusStatus {
    return { state: 'disabled' };
  }

  async close(): Promise<void> {}
}
