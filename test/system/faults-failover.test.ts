/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../utils/browser.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { FailoverProxy } from '../utils/failover-proxy.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';

/**
 * Fault injection: two built instances A and B (joined over a private nats-server) behind a failover reverse proxy;
 * a headless Chromium page follows the change stream through the proxy, first served by A. A is killed with SIGKILL:
 * the page's EventSources reconnect through the proxy to B with the last id they saw, B replays what was committed
 * in between (client/realtime.js refreshes for it through its debounce, not for the reconnect), and B's mutations reach
 * it.
 */
const CLIENT = readFileSync(new URL('../../client/realtime.js', import.meta.url), 'utf8');
const page = (projectUuid: string) => `<!doctype html><html><body><script type="module">
  import { subscribeChanges } from '/client/realtime.js';
  window.refreshes = [];
  window.messages = [];
  window.opens = 0;
  window.errors = 0;
  window.changes = subscribeChanges({ projectUuid: '${projectUuid}', retryMs: 1000, onRefresh: () => window.refreshes.push(Date.now()) });
  // A plain EventSource beside it, recording what arrives.
  const es = new EventSource('/api/events?projectUuid=${projectUuid}');
  window.es = es;
  es.onopen = () => window.opens++;
  es.onerror = () => window.errors++;
  es.onmessage = (e) => window.messages.push(JSON.parse(e.data).entityUuid);
  window.ready = true;
</script></body></html>`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('faults: one of two instances killed (SIGKILL) behind a failover proxy, with a browser attached', () => {
  let world: World;
  let db: TestDatabase;
  let nats: TestNatsServer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let proxy: FailoverProxy;
  let browser: Browser;
  let tab: Page;
  let onA: HttpClient;
  let onB: HttpClient;
  let projectUuid: string;

  // A stale dist/ is rebuilt first (one build at a time across test files), which may take a while on a busy machine.
  beforeAll(() => ensureBuilt(), 180_000);

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    const f = world.ids;
    const user = await f.user((await f.company()).uuid);
    nats = await TestNatsServer.start();
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, BUS_SUBJECT_PREFIX: `ff${randomUUID().slice(0, 8)}`, SSE_HEARTBEAT_MS: '30000' };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    for (const svc of [a, b]) {
      for (let i = 0; i < 200 && (await fetch(`${svc.url}/health/ready`)).status !== 200; i++) await sleep(50);
    }
    proxy = await FailoverProxy.start([a.url, b.url]);
    onA = new HttpClient(a.url);
    await onA.login(user.email, user.password);
    onB = new HttpClient(b.url);
    onB.cookie = onA.cookie;
    projectUuid = (await onA.post('/api/projects', { name: 'Failover' })).body.data.uuid;

    browser = await launchBrowser();
    const context = await browser.newContext();
    const { hostname, port } = new URL(proxy.url);
    await context.addCookies([{ name: 'svc_session', value: onA.cookie!.split('=')[1], domain: hostname, path: '/', httpOnly: true }]);
    // The page and the module come from the proxy's origin, as the frontend would be served next to the API.
    await context.route(`http://${hostname}:${port}/page.html`, (r) => r.fulfill({ contentType: 'text/html', body: page(projectUuid) }));
    await context.route(`http://${hostname}:${port}/client/realtime.js`, (r) => r.fulfill({ contentType: 'text/javascript', body: CLIENT }));
    tab = await context.newPage();
    await tab.goto(`${proxy.url}/page.html`);
    await tab.waitForFunction(() => (window as any).ready === true && (window as any).opens === 1);
    // Both streams (the module's and the plain one) are answered.
    for (let i = 0; i < 400 && (proxy.served.get(a.url) ?? 0) < 2; i++) await sleep(25);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    a?.kill();
    b?.kill();
    await nats?.stop();
    await world?.close();
  });

  const createIdea = async (client: HttpClient, title: string): Promise<string> => {
    const res = await client.post(`/api/projects/${projectUuid}/ideas`, { title });
    expect(res.status).toBe(201);
    return res.body.data.uuid;
  };
  const state = () => tab.evaluate(() => ({ refreshes: (window as any).refreshes.length as number, messages: (window as any).messages as string[], opens: (window as any).opens as number }));

  it('reconnects through the proxy to B after A is killed, resumes (what was committed meanwhile arrives), and receives B’s mutations', async () => {
    // Both streams are served by A (the proxy's first choice); a mutation on B reaches the page over NATS.
    expect(proxy.served.get(a.url)).toBeGreaterThanOrEqual(2);
    expect(proxy.served.get(b.url)).toBeUndefined();
    const before = await createIdea(onB, 'Before the kill');
    await tab.waitForFunction((u) => (window as any).messages.includes(u), before, { timeout: 10_000 });
    // The first open's refresh, then the frame's (debounced).
    await tab.waitForFunction(() => (window as any).refreshes.length === 2, undefined, { timeout: 10_000 });

    a.proc.kill('SIGKILL');
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Committed before any reconnect (the browsers wait the stream's retry, at least SSE_RETRY_MS).
    const during = await createIdea(onB, 'During the gap');

    // The EventSources notice the loss and reconnect through the proxy (A refuses, B answers) with Last-Event-ID:
    // B replays the idea, and the module refreshes once for it (debounced), not for the reconnect itself.
    await tab.waitForFunction(() => (window as any).opens === 2, undefined, { timeout: 20_000 });
    for (let i = 0; i < 800 && (proxy.served.get(b.url) ?? 0) < 2; i++) await sleep(25);
    expect(proxy.served.get(b.url)).toBeGreaterThanOrEqual(2);
    await tab.waitForFunction((u) => (window as any).messages.includes(u), during, { timeout: 10_000 });
    await tab.waitForFunction(() => (window as any).refreshes.length === 3, undefined, { timeout: 10_000 });
    await sleep(1000);
    expect((await state()).refreshes).toBe(3);

    const after = await createIdea(onB, 'After the kill');
    await tab.waitForFunction((u) => (window as any).messages.includes(u), after, { timeout: 10_000 });
    await tab.waitForFunction(() => (window as any).refreshes.length === 4, undefined, { timeout: 10_000 });
    expect((await state()).messages).toEqual([before, during, after]);

    // B carries on alone.
    expect(b.proc.exitCode).toBeNull();
    expect((await fetch(`${b.url}/health/ready`)).status).toBe(200);
    expect(b.output()).not.toMatch(/"level":"fatal"|"unhandled error"/);
  }, 60_000);

  it('recovers after a reconnect answered 503 (the browser gives up on its own) once the backend answers again', async () => {
    // Streams cut while nothing healthy is behind the proxy: reconnects get 503 and Chromium closes the EventSource for good.
    proxy.unavailable = true;
    proxy.cutAll();
    await tab.waitForFunction(() => (window as any).es.readyState === EventSource.CLOSED, undefined, { timeout: 20_000 });
    const before = (await state()).refreshes;
    await createIdea(onB, 'During the 503s');
    await sleep(1500); // at least one retry of client/realtime.js is refused too
    expect((await state()).refreshes).toBe(before);

    proxy.unavailable = false;
    // client/realtime.js opens a new source after retryMs with ?lastEventId=: B replays the idea (one debounced
    // refresh, none for the open itself), and the module follows B's mutations again.
    const served = proxy.served.get(b.url) ?? 0;
    await tab.waitForFunction((n) => (window as any).refreshes.length === n + 1, before, { timeout: 20_000 });
    expect(proxy.served.get(b.url)).toBeGreaterThan(served);
    await sleep(1000);
    expect((await state()).refreshes).toBe(before + 1);
    await createIdea(onB, 'After the 503');
    await tab.waitForFunction((n) => (window as any).refreshes.length === n + 2, before, { timeout: 10_000 });
  }, 60_000);
});
