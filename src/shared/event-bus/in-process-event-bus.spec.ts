import { EventEmitter2 } from '@nestjs/event-emitter';
import { BUS_EVENTS, type RealtimeEvent } from './events.js';
import { InProcessEventBus } from './in-process-event-bus.js';

const change: RealtimeEvent = { companyUuid: 'c', projectUuid: 'p', entityType: 'task', entityUuid: 'e', action: 'updated' };

describe('InProcessEventBus', () => {
  it('emits a publish on the EventEmitter2 at once, flagged local', () => {
    const emitter = new EventEmitter2();
    const bus = new InProcessEventBus(undefined, emitter);
    const seen: unknown[][] = [];
    emitter.on(BUS_EVENTS.change, (...args: unknown[]) => seen.push(args));
    bus.publish('change', change, 'e1-7');
    expect(seen).toEqual([[change, { relayed: false, position: 'e1-7' }]]);
    expect(bus.status()).toEqual({ state: 'disabled' });
  });

  it('keeps a throwing subscriber away from the others and the publisher, and unsubscribes', () => {
    const errors: unknown[] = [];
    const bus = new InProcessEventBus((err) => errors.push(err));
    const got: string[] = [];
    bus.subscribe('change', () => {
      throw new Error('listener boom');
    });
    const off = bus.subscribe('change', (e, meta) => got.push(`${e.entityUuid}:${meta.relayed}`));
    expect(() => bus.publish('change', change, 'e1-1')).not.toThrow();
    off();
    bus.publish('change', change, 'e1-1');
    expect(got).toEqual(['e:false']);
    expect(errors).toEqual([new Error('listener boom'), new Error('listener boom')]);
  });
});
