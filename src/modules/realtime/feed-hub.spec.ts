import type { MessageEvent } from '@nestjs/common';
import { pino } from 'pino';
import type { AppConfig } from '../../config/config.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { FeedHub, SLICE_MESSAGES, type Member } from './feed-hub.js';
import { framesOf, positioned } from './frames.js';

const turn = () => new Promise((r) => setImmediate(r));

function setup() {
  const config = { sseLagMs: 30_000 } as AppConfig;
  const hub = new FeedHub(config, new MetricsService(), pino({ level: 'silent' }));
  const member = (): Member & { got: MessageEvent[] } => {
    const got: MessageEvent[] = [];
    return { got, closed: false, next: (m) => void got.push(m) };
  };
  let n = 0;
  const frame = () => positioned('ep', ++n, `{"n":${n}}`, null);
  const positions = (m: { got: MessageEvent[] }) => m.got.flatMap((x) => framesOf(x)?.map((f) => f.n) ?? []);
  return { hub, member, frame, positions };
}

describe('FeedHub', () => {
  it('publishing only queues; a round writes in slices of at most SLICE_MESSAGES messages, a loop turn between them', async () => {
    const { hub, member, frame } = setup();
    const members = Array.from({ length: SLICE_MESSAGES * 4 }, () => member());
    for (const m of members) hub.join('c:co', null, false, m);
    hub.publish('c:co', frame());
    expect(members.filter((m) => m.got.length).length).toBe(0);
    await turn();
    const afterOne = members.filter((m) => m.got.length).length;
    expect(afterOne).toBeGreaterThan(0);
    expect(afterOne).toBeLessThanOrEqual(SLICE_MESSAGES);
    for (let i = 0; i < 10; i++) await turn();
    expect(members.every((m) => m.got.length === 1)).toBe(true);
  });

  it('what comes in while a round runs joins the next one (batch=1: one message), and every member gets the frames in order', async () => {
    const { hub, member, frame, positions } = setup();
    const batched = Array.from({ length: SLICE_MESSAGES * 3 }, () => member());
    const single = member();
    for (const m of batched) hub.join('c:co', null, true, m);
    hub.join('c:co', null, false, single);
    hub.publish('c:co', frame());
    await turn(); // the round of frame 1 has started, not finished
    for (let i = 0; i < 5; i++) hub.publish('c:co', frame());
    for (let i = 0; i < 40; i++) await new Promise((r) => setTimeout(r, 5));
    for (const m of batched) {
      expect(positions(m)).toEqual([1, 2, 3, 4, 5, 6]);
      // Frame 1 alone, then the five that came meanwhile as one batch.
      expect(m.got.map((x) => x.type ?? 'frame')).toEqual(['frame', 'batch']);
    }
    expect(positions(single)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(single.got.every((x) => x.type === undefined)).toBe(true);
  });

  it('a member that joins while frames are queued gets them; one that leaves mid-round gets nothing more', async () => {
    const { hub, member, frame, positions } = setup();
    const first = member();
    hub.join('c:co', null, false, first);
    const f1 = frame();
    hub.publish('c:co', f1);
    expect(hub.startAfter('c:co', f1.n)).toBe(0);
    const late = member();
    hub.join('c:co', 'p1', false, late); // a new set: seeded with the queued frames it admits (none: f1 has no project)
    const lateWhole = member();
    hub.join('c:co', null, false, lateWhole);
    await turn();
    expect(positions(first)).toEqual([1]);
    expect(positions(lateWhole)).toEqual([1]);
    expect(positions(late)).toEqual([]);
    expect(hub.startAfter('c:co', f1.n)).toBe(1);
    const gone = { ...member(), closed: true };
    hub.join('c:co', null, false, gone);
    hub.publish('c:co', frame());
    await turn();
    expect(gone.got).toEqual([]);
  });
});
