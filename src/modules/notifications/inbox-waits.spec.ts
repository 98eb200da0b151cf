import { EventEmitter2 } from '@nestjs/event-emitter';
import type { BusInterest, BusTopic } from '../../shared/event-bus/event-bus.port.js';
import { InProcessEventBus } from '../../shared/event-bus/in-process-event-bus.js';
import { AppError } from '../../shared/errors/app-error.js';
import { InboxWaits, MAX_WAITS_PER_RECIPIENT } from './inbox-waits.js';

const U = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const frame = { type: 'count_update' as const, unreadCount: 0 };

function setup() {
  const bus = new InProcessEventBus(() => undefined, new EventEmitter2());
  const waits = new InboxWaits(bus);
  const deliver = (uuid: string, position: string | null) => waits.onFrame({ recipientType: 'agent', recipientUuid: uuid, frame }, { relayed: true, position });
  return { waits, deliver };
}

describe('InboxWaits', () => {
  it('a watch holds the bus interest in its recipient from its opening to its close, and says when it is active', async () => {
    const held: string[] = [];
    let confirm!: () => void;
    const active = new Promise<void>((r) => (confirm = r));
    const bus = new (class extends InProcessEventBus {
      override interest(topic: BusTopic): BusInterest {
        const name = topic.kind === 'notification' ? `${topic.recipientType}:${topic.recipientUuid}` : topic.companyUuid;
        held.push(name);
        return { ready: active, continuous: false, release: () => held.splice(held.indexOf(name), 1) };
      }
    })();
    const waits = new InboxWaits(bus);
    const watch = waits.watch('agent', U);
    expect(held).toEqual([`agent:${U}`]);
    let ready = false;
    void watch.ready.then(() => (ready = true));
    await new Promise((r) => setImmediate(r));
    expect(ready).toBe(false);
    confirm();
    await watch.ready;
    watch.close();
    expect(held).toEqual([]);
  });

  it('gives each recipient MAX_WAITS_PER_RECIPIENT slots; the next is RATE_LIMITED; releasing twice frees one', () => {
    const { waits } = setup();
    const releases = Array.from({ length: MAX_WAITS_PER_RECIPIENT }, () => waits.acquire('agent', U));
    let refused: unknown;
    try {
      waits.acquire('agent', U);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('RATE_LIMITED');
    expect(waits.acquire('user', U)).toEqual(expect.any(Function));
    releases[0]();
    releases[0]();
    expect(waits.active('agent', U)).toBe(MAX_WAITS_PER_RECIPIENT - 1);
    waits.acquire('agent', U);
    expect(() => waits.acquire('agent', U)).toThrow('Too many concurrent waits');
  });

  it('wakes on a frame beyond what the caller has seen, including one that arrived before it waited', async () => {
    const { waits, deliver } = setup();
    const watch = waits.watch('agent', U);
    deliver(U, 'e1-4');
    // Already seen up to 4: nothing newer. Seen up to 3: the frame that came before the wait counts.
    expect(await watch.next(4, 30)).toBe('timeout');
    expect(await watch.next(3, 10_000)).toBe('changed');
    deliver(U, 'e1-5');
    expect(await watch.next(4, 10_000)).toBe('changed');
    const later = watch.next(5, 10_000);
    deliver('00000000-0000-4000-8000-000000000000', 'e1-9');
    deliver(U, 'e1-5');
    deliver(U, 'e1-6');
    expect(await later).toBe('changed');
    watch.close();
  });

  it('times out, ends on end() and at shutdown', async () => {
    const { waits } = setup();
    const watch = waits.watch('agent', U);
    expect(await watch.next(0, 20)).toBe('timeout');
    const ended = watch.next(0, 10_000);
    watch.end();
    expect(await ended).toBe('shutdown');
    const other = waits.watch('agent', U);
    const pending = other.next(0, 10_000);
    waits.beforeApplicationShutdown();
    expect(await pending).toBe('shutdown');
    expect(await waits.watch('agent', U).next(0, 10_000)).toBe('shutdown');
  });

  it('a reconnect of the shared channel (frames may be lost) makes every waiting watch re-read', async () => {
    const { waits } = setup();
    const watch = waits.watch('agent', U);
    expect(watch.busTroubled).toBe(false);
    const pending = watch.next(0, 10_000);
    waits.onResync();
    expect(await pending).toBe('recheck');
    expect(watch.busTroubled).toBe(true);
    watch.close();
  });
});
