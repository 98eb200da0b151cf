/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { launchBrowser } from '../utils/browser.js';
import { FailoverProxy } from '../utils/failover-proxy.js';
import { HttpClient } from '../utils/http.js';
import { World } from '../utils/world.js';

/**
 * The shipped browser module (client/realtime.js) in headless Chromium against the real service (docs/platform.md §8 last
 * bullet, §6.2 resume, docs/notifications.md §3 ordering). The page and the module are served on one origin, a plain
 * reverse proxy in front of the service (so a test can cut the streams' connections, as a restarting balancer would);
 * every event comes from a real REST mutation. `REALTIME_CLIENT=<path>` runs the suite against another copy of the
 * module (e.g. the previous one, to see the resume and ordering tests fail on it).
 */
const CLIENT = readFileSync(process.env.REALTIME_CLIENT ?? new URL('../../client/realtime.js', import.meta.url), 'utf8');
const PAGE = `<!doctype html><html><body><script type="module">
  import { subscribeChanges, subscribeNotifications } from '/client/realtime.js';
  const q = new URLSearchParams(location.search);
  window.refreshes = [];
  window.frames = [];
  window.counts = [];
  // Unread-count answers the bell has fully handled (its handler runs in the microtasks after json()).
  window.countReads = 0;
  const countingFetch = (...args) => fetch(...args).then((res) => {
    const json = res.json.bind(res);
    res.json = () => json().finally(() => setTimeout(() => window.countReads++, 0));
    return res;
  });
  const retryMs = q.has('retryMs') ? Number(q.get('retryMs')) : undefined;
  // When each frame reached the page: recorded in the same event dispatch as the module's own handlers, so its order
  // against the module's timers is the order the module saw. A batch (event: batch) records its arrival once per frame
  // it carries; window.batches counts the batches and their sizes.
  window.messages = [];
  window.batches = [];
  window.EventSource = class extends EventSource {
    constructor(url, init) {
      super(url, init);
      this.addEventListener('message', () => window.messages.push(Date.now()));
      this.addEventListener('batch', (e) => {
        const n = JSON.parse(e.data).length;
        window.batches.push(n);
        for (let i = 0; i < n; i++) window.messages.push(Date.now());
      });
    }
  };
  if (q.has('changes')) window.changes = subscribeChanges({ projectUuid: q.get('project') || undefined, retryMs, onRefresh: () => window.refreshes.push(Date.now()) });
  if (q.has('bell')) window.bell = subscribeNotifications({ retryMs, fetch: countingFetch, onUnreadCount: (n) => window.counts.push(n), onFrame: (f) => window.frames.push(f) });
  window.ready = true;
</script></body></html>`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const isChanges = (u: URL) => u.pathname === '/api/events';
const isBell = (u: URL) => u.pathname === '/api/events/notifications';
const isStream = (u: URL) => isChanges(u) || isBell(u);
const isCount = (u: URL) => u.pathname === '/api/notifications/unread-count';

/** Holds the requests `match` admits (the browser's own, EventSource included) until `release()`, then lets them go on. */
async function hold(context: BrowserContext, match: (u: URL) => boolean) {
  const requests: Array<{ url: URL; headers: Record<string, string> }> = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const predicate = (u: URL) => match(u);
  const handler = async (route: Route) => {
    requests.push({ url: new URL(route.request().url()), headers: await route.request().allHeaders() });
    await released;
    await route.continue().catch(() => undefined);
  };
  await context.route(predicate, handler);
  return {
    requests,
    async release() {
      await context.unroute(predicate, handler);
      release();
    },
  };
}

describe('browser client module in headless Chromium', () => {
  let app: World;
  let proxy: FailoverProxy;
  let browser: Browser;
  let cookie: string;
  let http: HttpClient; // user A, the page's user
  let other: HttpClient; // user B, whose comments notify A
  let projectUuid: string;
  let ideaUuid: string; // created by A: B's comments on it notify A
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // A short reconnect delay keeps the automatic reconnects quick; the tests hold them where it matters.
    app = await World.start({ env: { SSE_RETRY_MS: '500' } });
    const f = app.ids;
    const c = await f.company();
    const a = await f.user(c.uuid);
    const b = await f.user(c.uuid);
    http = new HttpClient(app.url);
    await http.login(a.email, a.password);
    other = new HttpClient(app.url);
    await other.login(b.email, b.password);
    cookie = http.cookie!.split('=')[1];
    projectUuid = (await http.post('/api/projects', { name: 'Browser' })).body.data.uuid;
    ideaUuid = (await http.post(`/api/projects/${projectUuid}/ideas`, { title: 'Commented' })).body.data.uuid;
    proxy = await FailoverProxy.start([app.url]);
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await app?.close();
  });

  afterEach(async () => {
    await context?.close();
    await until('the streams to close', async () => (await streams()).total === 0);
  });

  /** Open streams on the service, from its `svc_sse_connections` gauge. */
  async function streams(): Promise<{ changes: number; notifications: number; total: number }> {
    const text = (await app.http().get('/metrics')).text;
    const read = (kind: string) => Number(new RegExp(`^svc_sse_connections\\{stream="${kind}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    const changes = read('changes');
    const notifications = read('notifications');
    return { changes, notifications, total: changes + notifications };
  }

  /** A fresh context and page on the proxy's origin; `query` picks what the page subscribes to. */
  async function openPage(query: string, beforeLoad?: (context: BrowserContext) => Promise<unknown>): Promise<Page> {
    context = await browser.newContext();
    await context.addCookies([{ name: 'svc_session', value: cookie, domain: '127.0.0.1', path: '/', httpOnly: true }]);
    await context.route(`${proxy.url}/page.html*`, (r) => r.fulfill({ contentType: 'text/html', body: PAGE }));
    await context.route(`${proxy.url}/client/realtime.js`, (r) => r.fulfill({ contentType: 'text/javascript', body: CLIENT }));
    await beforeLoad?.(context);
    page = await context.newPage();
    await page.goto(`${proxy.url}/page.html?${query}`);
    await page.waitForFunction(() => (window as any).ready === true);
    return page;
  }

  const get = <T = any>(expr: string): Promise<T> => page.evaluate((e) => (0, eval)(e), expr) as Promise<T>;
  const refreshes = () => get<number>('window.refreshes.length');
  const countReads = () => get<number>('window.countReads');
  const lastCount = () => get<number | undefined>('window.counts.at(-1)');

  const setVisibility = (state: 'hidden' | 'visible') =>
    page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);

  /** A real mutation through the REST API: its change event reaches the page through the service. */
  const mutate = async (title: string) => {
    const res = await http.post(`/api/projects/${projectUuid}/ideas`, { title });
    expect(res.status).toBe(201);
  };

  /** B comments on A's idea: A gets a `new_notification` frame (docs/notifications.md §4.1 comment_added). */
  const notifyA = async () => {
    const res = await other.post('/api/comments', { targetType: 'idea', targetUuid: ideaUuid, content: `Comment ${Date.now()}` });
    expect(res.status).toBe(201);
  };

  const unreadCount = async (): Promise<number> => (await http.get('/api/notifications/unread-count')).body.data.count;

  /**
   * A change-stream page whose stream is registered and has delivered one frame (so the module knows an id); returns
   * the refresh count once settled. It asks nothing more of the module, so the tests after it fail on what they test
   * when run against another module (REALTIME_CLIENT).
   */
  async function changesPageWithId(extra = ''): Promise<number> {
    await openPage(`changes&project=${projectUuid}${extra}`);
    await until('the stream to register', async () => (await streams()).changes === 1);
    await mutate('Seen');
    await until('a refresh', async () => (await refreshes()) >= 1);
    await sleep(1200); // the frame's debounced refresh, the first open's too
    return refreshes();
  }

  /** The same with the bell too, which has seen one frame as well. */
  async function bothPagesWithIds(): Promise<number> {
    await openPage(`changes&project=${projectUuid}&bell`);
    await until('both streams to register', async () => (await streams()).total === 2);
    await mutate('Seen');
    await notifyA(); // also an `idea updated` change
    await until('a frame on both streams', async () => (await get<number>('window.frames.length')) >= 1 && (await refreshes()) >= 1);
    await sleep(1200);
    return refreshes();
  }

  it('refreshes once on the first open, after the stream is open (not at construction); so does a reopen with no id known', async () => {
    let first!: Awaited<ReturnType<typeof hold>>;
    await openPage(`changes&project=${projectUuid}`, async (ctx) => (first = await hold(ctx, isChanges)));
    await until('the stream request', () => first.requests.length === 1);
    await sleep(700); // longer than the debounce: nothing is pending
    expect(await refreshes()).toBe(0);
    await first.release();
    await until('the first refresh', async () => (await refreshes()) === 1);
    await until('the stream to register', async () => (await streams()).changes === 1);
    await sleep(700);
    expect(await refreshes()).toBe(1);

    // No frame seen, so no id known: hidden → visible reopens plainly and refreshes on that stream's open.
    await setVisibility('hidden');
    await until('the stream to close', async () => (await streams()).changes === 0);
    const again = await hold(context, isChanges);
    await setVisibility('visible');
    await until('the reopened stream request', () => again.requests.length === 1);
    expect(again.requests[0].url.searchParams.has('lastEventId')).toBe(false);
    await sleep(300);
    expect(await refreshes()).toBe(1);
    await again.release();
    await until('the refresh on open', async () => (await refreshes()) === 2);
    await sleep(700);
    expect(await refreshes()).toBe(2);
  });

  it('refreshes once, 500 ms or a little more after the last event of a burst of ten mutations', async () => {
    const before = await changesPageWithId();
    const framesBefore = await get<number>('window.messages.length');
    // Ten concurrent mutations. On a loaded 2-core machine their commits can still spread wider than the debounce, so
    // the assertions are on the frames as the page received them, not on when the requests were sent.
    await Promise.all(Array.from({ length: 10 }, (_, i) => mutate(`Burst ${i}`)));
    await until('the ten frames', async () => (await get<number>('window.messages.length')) >= framesBefore + 10, 5000);
    const framesAt: number[] = (await get<number[]>('window.messages')).slice(framesBefore);
    const last = framesAt.at(-1)!;
    await until('the refresh after the last frame', async () => (await get<number[]>('window.refreshes')).at(-1)! > last, 3000);
    await sleep(700);
    const seen: number[] = await get<number[]>('window.messages'); // every frame of this page, the set-up's too
    const frames = seen.slice(framesBefore);
    const all: number[] = await get<number[]>('window.refreshes');
    expect(frames).toHaveLength(10); // one frame per mutation, nothing else
    // Every refresh since the set-up settled (a late one of the set-up's own frame included) is a debounce firing:
    // 500 ms or more after the latest frame before it ...
    const since = all.slice(Math.max(0, before - 1));
    for (const r of since.slice(before > 0 ? 1 : 0)) {
      const latest = seen.filter((f) => f < r).at(-1);
      expect(latest).toBeDefined();
      expect(r - latest!).toBeGreaterThanOrEqual(495); // ms clock: a 500 ms timer may read 499
    }
    // ... and never two for the same frames: between two refreshes at least one new frame arrived. So frames closer
    // together than 500 ms give exactly one refresh, however the machine spread them.
    for (let i = 1; i < since.length; i++) expect(seen.some((f) => f >= since[i - 1] && f < since[i])).toBe(true);
    const ofBurst = all.filter((r) => r > frames[0]);
    const gaps = frames.slice(1).map((f, i) => f - frames[i]);
    if (Math.max(...gaps) < 450) expect(ofBurst).toHaveLength(1);
    // The burst ends in a refresh, a little after the 500 ms (the timer can be late on a loaded machine).
    expect(ofBurst.at(-1)! - last).toBeGreaterThanOrEqual(495);
    expect(ofBurst.at(-1)! - last).toBeLessThanOrEqual(1500);
  });

  it('hidden → visible: a mutation committed while the reopened stream is not yet registered still refreshes the page (resumed with lastEventId)', async () => {
    const before = await changesPageWithId();
    await setVisibility('hidden');
    await until('the stream to close', async () => (await streams()).changes === 0);
    // The gap made deterministic: the reopened stream's request is held ~1 s while a mutation commits.
    const held = await hold(context, isChanges);
    await setVisibility('visible');
    await until('the reopened stream request', () => held.requests.length === 1);
    const atVisible = await refreshes(); // a client that refreshes at visible has done so by now
    await mutate('In the gap');
    await sleep(1000);
    expect((await streams()).changes).toBe(0); // the stream really was not there when the mutation committed
    await held.release();
    // The page must learn of the mutation: replayed after the id it resumed from, then debounced into a refresh.
    await until('a refresh after the mutation', async () => (await refreshes()) > atVisible, 5000).catch(() => undefined);
    expect(await refreshes()).toBeGreaterThan(atVisible);
    // ... and it did not refresh at visible (it resumed instead), and the URL kept the project filter.
    expect(atVisible).toBe(before);
    const url = held.requests[0].url;
    expect(url.searchParams.get('projectUuid')).toBe(projectUuid);
    expect(url.searchParams.get('lastEventId')).toMatch(/^.+-\d+$/);
    await sleep(700);
    expect(await refreshes()).toBe(before + 1);
  });

  it('bell: a stale unread-count answer arriving after a newer frame does not overwrite the badge', async () => {
    await openPage('bell');
    await until('the stream to register', async () => (await streams()).notifications === 1);
    await until('the initial count', async () => (await countReads()) === 1);
    expect(await lastCount()).toBe(await unreadCount());
    await notifyA();
    const afterFirst = await unreadCount();
    await until('the frame', async () => (await lastCount()) === afterFirst);

    // Visible again: the client re-reads the count. That answer is read now, but held on its way to the page.
    await setVisibility('hidden');
    await until('the stream to close', async () => (await streams()).notifications === 0);
    let fetched!: () => void;
    const wasFetched = new Promise<void>((r) => (fetched = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let position: string | undefined;
    await context.route(isCount, async (route) => {
      const response = await route.fetch();
      position = response.headers()['x-stream-position'];
      fetched();
      await released;
      await route.fulfill({ response });
    });
    const readsBefore = await countReads();
    const reopened: URL[] = [];
    context.on('request', (r) => {
      if (isBell(new URL(r.url()))) reopened.push(new URL(r.url()));
    });
    await setVisibility('visible');
    await wasFetched;
    await until('the stream to reopen', async () => (await streams()).notifications === 1);
    // A newer notification: its frame (position after the held answer's) reaches the page first.
    await notifyA();
    const newer = await unreadCount();
    expect(newer).toBe(afterFirst + 1);
    await until('the newer frame', async () => (await lastCount()) === newer);
    release();
    await until('the stale answer to be handled', async () => (await countReads()) > readsBefore);
    expect(await lastCount()).toBe(newer);
    expect(position).toMatch(/^.+-\d+$/);
    // The bell resumed (its URL had only batch=1 before).
    expect(reopened.map((u) => u.search)).toEqual([expect.stringMatching(/^\?batch=1&lastEventId=[^&]+-\d+$/)]);
  });

  it('an automatic reconnect resumes: no refresh and no count re-read, yet what was committed during the gap arrives', async () => {
    const before = await bothPagesWithIds();
    const reads = await countReads();
    const frames = await get<number>('window.frames.length');

    // Cut the connections (as a restarting balancer would) and hold the browser's reconnects while things commit.
    const held = await hold(context, isStream);
    proxy.cutAll();
    await until('both reconnects', () => held.requests.length === 2, 15000);
    await until('the old streams to end', async () => (await streams()).total === 0);
    await mutate('During the gap');
    await notifyA();
    const count = await unreadCount();
    await held.release();

    // The reconnects carry the browser's own Last-Event-ID (added below the layer a route sees, so not asserted
    // here): the frames committed while they were held can only arrive through that resume.
    for (const r of held.requests) expect(r.url.searchParams.has('lastEventId')).toBe(false);
    await until('the gap frames', async () => (await refreshes()) > before && (await lastCount()) === count, 5000);
    await sleep(1000);
    // One refresh: the debounced replayed frames (the idea and its comment); none for the reconnect itself.
    expect(await refreshes()).toBe(before + 1);
    expect(await countReads()).toBe(reads);
    expect(await get<number>('window.frames.length')).toBe(frames + 1);
  });

  it('a browser that gave up (503 on reconnect) reopens after retryMs with lastEventId: no refresh, the gap replayed', async () => {
    const before = await changesPageWithId('&retryMs=500');
    const seen = new Set<string>();
    context.on('request', (r) => {
      if (isChanges(new URL(r.url()))) seen.add(r.url());
    });
    proxy.unavailable = true;
    try {
      proxy.cutAll();
      await until('the old stream to end', async () => (await streams()).changes === 0);
      await mutate('While unavailable');
      // The browser's reconnect is answered 503: it gives up, and the module opens a new source after retryMs.
      await sleep(1500);
    } finally {
      proxy.unavailable = false;
    }
    await until('the refresh', async () => (await refreshes()) > before, 10000);
    await sleep(1000);
    expect(await refreshes()).toBe(before + 1);
    expect([...seen].some((u) => new URL(u).searchParams.has('lastEventId'))).toBe(true);
  });

  it('a reset refreshes the page at once and re-reads the count; the reset id is then resumed from', async () => {
    const before = await bothPagesWithIds();
    const reads = await countReads();
    await setVisibility('hidden');
    await until('the streams to close', async () => (await streams()).total === 0);

    // The reopened streams ask for a position of another epoch: the service cannot resume and resets.
    const rewrite = async (route: Route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('lastEventId', 'otherepoch-1');
      await route.continue({ url: url.toString() });
    };
    await context.route(isStream, rewrite);
    await setVisibility('visible');
    // The change stream: one refresh for the reset (the module refreshes at once; a debounced one would pass too).
    await until('the reset refresh', async () => (await refreshes()) === before + 1, 5000);
    // The bell: the read on becoming visible plus the re-read on reset.
    await until('the count re-read on reset', async () => (await countReads()) === reads + 2, 5000);
    expect(await lastCount()).toBe(await unreadCount());
    await context.unroute(isStream, rewrite);

    // The module kept the reset's id (the head), a valid position: the next resume is not reset again (no refresh).
    await sleep(700);
    await setVisibility('hidden');
    await until('the streams to close', async () => (await streams()).total === 0);
    const next = await hold(context, isChanges);
    await setVisibility('visible');
    await until('the reopened stream request', () => next.requests.length === 1);
    const resumedFrom = next.requests[0].url.searchParams.get('lastEventId');
    expect(resumedFrom).toMatch(/^.+-\d+$/);
    expect(resumedFrom).not.toBe('otherepoch-1');
    await next.release();
    await until('both streams', async () => (await streams()).total === 2);
    await sleep(1000);
    expect(await refreshes()).toBe(before + 1);
  });

  it('batch=1: a burst committed in one call arrives as a batch, gives one refresh 500 ms after it, and resumes from the batch id', async () => {
    const before = await changesPageWithId();
    const framesBefore = await get<number>('window.messages.length');
    const batchesBefore = await get<number>('window.batches.length');
    // One call creating five tasks: five `task created` events committed together.
    const res = await http.post(`/api/projects/${projectUuid}/tasks`, { tasks: Array.from({ length: 5 }, (_, i) => ({ title: `Batched ${i}`, acceptanceCriteriaItems: [{ description: 'Done' }] })) });
    expect(res.status).toBe(201);
    await until('the five frames', async () => (await get<number>('window.messages.length')) >= framesBefore + 5, 5000);
    const batches: number[] = (await get<number[]>('window.batches')).slice(batchesBefore);
    expect(batches).toEqual([5]);
    const arrived = (await get<number[]>('window.messages')).at(-1)!;
    await until('the refresh', async () => (await refreshes()) > before, 3000);
    await sleep(700);
    const all: number[] = await get<number[]>('window.refreshes');
    expect(all.slice(before)).toHaveLength(1);
    expect(all.at(-1)! - arrived).toBeGreaterThanOrEqual(495);
    // The batch's id is the last frame's position: the module resumes from it (no replay, no refresh).
    const lastId = await get<string>('window.changes.lastEventId()');
    await setVisibility('hidden');
    await until('the stream to close', async () => (await streams()).changes === 0);
    const reopened = await hold(context, isChanges);
    await setVisibility('visible');
    await until('the reopened request', () => reopened.requests.length === 1);
    expect(reopened.requests[0].url.searchParams.get('batch')).toBe('1');
    const resumedFrom = reopened.requests[0].url.searchParams.get('lastEventId');
    await reopened.release();
    await until('the stream', async () => (await streams()).changes === 1);
    await sleep(700);
    expect(await refreshes()).toBe(before + 1);
    expect(resumedFrom).toBe(lastId);
    expect(await get<number>('window.messages.length')).toBe(framesBefore + 5);
  });

  it('bell with batch=1: a replayed batch is its frames in order, the badge takes its last count and never goes backwards', async () => {
    await openPage('bell');
    await until('the stream to register', async () => (await streams()).notifications === 1);
    await until('the initial count', async () => (await countReads()) === 1);
    await notifyA();
    const first = await unreadCount();
    await until('the frame', async () => (await lastCount()) === first);
    await setVisibility('hidden');
    await until('the stream to close', async () => (await streams()).notifications === 0);
    // Three notifications while hidden: the resumed stream replays them, joined into one batch.
    for (let i = 0; i < 3; i++) await notifyA();
    const after = await unreadCount();
    expect(after).toBe(first + 3);
    const framesBefore = await get<number>('window.frames.length');
    const batchesBefore = await get<number>('window.batches.length');
    await setVisibility('visible');
    await until('the replayed frames', async () => (await get<number>('window.frames.length')) === framesBefore + 3, 5000);
    expect((await get<number[]>('window.batches')).slice(batchesBefore)).toEqual([3]);
    const replayed = (await get<Array<{ type: string; unreadCount: number }>>('window.frames')).slice(framesBefore);
    expect(replayed.map((f) => [f.type, f.unreadCount])).toEqual([
      ['new_notification', first + 1],
      ['new_notification', first + 2],
      ['new_notification', first + 3],
    ]);
    await until('the count re-read on visible', async () => (await countReads()) === 2);
    expect(await lastCount()).toBe(after);
    // Every value the badge showed was newer than the one before: here counts only grow.
    const shown: number[] = await get<number[]>('window.counts');
    for (let i = 1; i < shown.length; i++) expect(shown[i]).toBeGreaterThanOrEqual(shown[i - 1]);
    // The batch set the badge once, to its last frame's count: no intermediate value of it was shown.
    expect(shown).not.toContain(first + 1);
    expect(shown).not.toContain(first + 2);
  });

  it('closes both streams when hidden and reopens them when visible', async () => {
    await openPage(`changes&project=${projectUuid}&bell`);
    await until('both streams', async () => (await streams()).total === 2);
    await setVisibility('hidden');
    await until('the streams to close', async () => (await streams()).total === 0);
    await mutate('While hidden');
    await sleep(700);
    const hiddenRefreshes = await refreshes();
    await setVisibility('visible');
    await until('both streams', async () => (await streams()).total === 2);
    expect(await refreshes()).toBeGreaterThanOrEqual(hiddenRefreshes);
  });

  it('tears everything down on dispose', async () => {
    await openPage(`changes&project=${projectUuid}&bell`);
    await until('both streams', async () => (await streams()).total === 2);
    await sleep(300);
    const before = await refreshes();
    await page.evaluate(() => {
      (window as any).changes.dispose();
      (window as any).bell.dispose();
    });
    await until('the streams to close', async () => (await streams()).total === 0);
    await mutate('After dispose');
    await notifyA();
    await sleep(700);
    expect(await refreshes()).toBe(before);
    expect(await get('window.frames.length')).toBe(0);
    // Visibility changes after dispose open nothing.
    await setVisibility('hidden');
    await setVisibility('visible');
    await sleep(300);
    expect((await streams()).total).toBe(0);
  });
});
