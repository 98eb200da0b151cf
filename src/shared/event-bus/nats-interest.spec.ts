import { InterestSubscriptions, type InterestConnection, type InterestKind } from './nats-interest.js';

/** A connection that records subscriptions and flushes, and answers a flush when the test says. */
class FakeConnection implements InterestConnection {
  readonly active = new Set<string>();
  subscribes = 0;
  flushes = 0;
  private readonly pongs: Array<() => void> = [];
  private readonly callbacks = new Map<string, (err: Error | null, msg: { data: Uint8Array }) => void>();
  subscribe(subject: string, opts: { callback: (err: Error | null, msg: { data: Uint8Array }) => void }): { unsubscribe(): void } {
    this.subscribes++;
    this.active.add(subject);
    this.callbacks.set(subject, opts.callback);
    return { unsubscribe: () => (this.active.delete(subject), this.callbacks.delete(subject)) };
  }
  flush(): Promise<void> {
    this.flushes++;
    return new Promise((r) => this.pongs.push(r));
  }
  pong(): void {
    for (const r of this.pongs.splice(0)) r();
  }
  deliver(subject: string, body: string): void {
    this.callbacks.get(subject)?.(null, { data: new TextEncoder().encode(body) });
  }
}

const turn = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(lingerMs = 50, flushTimeoutMs = 1000) {
  const got: Array<[InterestKind, string]> = [];
  const counts = { subscribed: 0, unsubscribed: 0 };
  const subs = new InterestSubscriptions({
    lingerMs,
    flushTimeoutMs,
    onMessage: (kind, data) => got.push([kind, new TextDecoder().decode(data)]),
    onSubscribed: () => counts.subscribed++,
    onUnsubscribed: () => counts.unsubscribed++,
    onError: () => undefined,
  });
  return { subs, got, counts };
}

describe('InterestSubscriptions', () => {
  it('subscribes a subject once for all its holders, is ready when the server confirmed it (one flush per turn), and receives its messages', async () => {
    const { subs, got, counts } = setup();
    const conn = new FakeConnection();
    await Promise.race([subs.attach(conn), turn().then(() => conn.pong())]);
    conn.flushes = 0;
    const a = subs.acquire('p.change.x', 'change');
    const b = subs.acquire('p.change.x', 'change');
    const c = subs.acquire('p.notify.agent.y', 'notification');
    expect([a.continuous, b.continuous, c.continuous]).toEqual([false, true, false]);
    expect([...conn.active].sort()).toEqual(['p.change.x', 'p.notify.agent.y']);
    expect(counts.subscribed).toBe(2);
    let ready = false;
    void Promise.all([a.ready, c.ready]).then(() => (ready = true));
    await turn();
    expect(conn.flushes).toBe(1);
    expect(ready).toBe(false);
    conn.pong();
    await turn();
    expect(ready).toBe(true);
    conn.deliver('p.change.x', 'one');
    expect(got).toEqual([['change', 'one']]);
    for (const i of [a, b, c]) i.release();
  });

  it('keeps a subject through the linger: taken again within it, nothing changes; after it, unsubscribed', async () => {
    const { subs, counts } = setup(80);
    const conn = new FakeConnection();
    void subs.attach(conn);
    const first = subs.acquire('p.change.x', 'change');
    first.release();
    first.release();
    await sleep(30);
    const again = subs.acquire('p.change.x', 'change');
    expect(again.continuous).toBe(true);
    await sleep(100);
    expect(conn.active.has('p.change.x')).toBe(true);
    again.release();
    await sleep(40);
    expect(conn.active.has('p.change.x')).toBe(true);
    await sleep(80);
    expect(conn.active.has('p.change.x')).toBe(false);
    expect(subs.size).toBe(0);
    expect(counts).toEqual({ subscribed: 1, unsubscribed: 1 });
    expect(subs.acquire('p.change.x', 'change').continuous).toBe(false);
    expect(conn.subscribes).toBe(2);
  });

  it('without a connection it records the subjects (ready at once) and subscribes them at the first connect; a flush that never answers still settles', async () => {
    const { subs } = setup(50, 40);
    const early = subs.acquire('p.change.x', 'change');
    await early.ready;
    const conn = new FakeConnection();
    const attached = subs.attach(conn);
    expect([...conn.active]).toEqual(['p.change.x']);
    const t0 = Date.now();
    await attached;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(30);
    early.release();
    subs.close();
  });
});
