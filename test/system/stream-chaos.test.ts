import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { EventSource } from 'eventsource';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { CutProxy } from '../utils/cut-proxy.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import { parseBlock } from '../utils/sse-positions.js';
import { World } from '../utils/world.js';

/**
 * Chaos on the change stream: two built instances over one nats-server and one database; a few hundred streams of
 * one company (raw clients that reconnect themselves with `Last-Event-ID`, sometimes an older one; real
 * `eventsource` clients behind a proxy that cuts their sockets); a writer committing a few thousand ideas through
 * both instances; nats-server killed and restarted twice; client sockets cut at random throughout.
 *
 * Beside them, subscriptions come and go (docs/platform.md §7, interest): a few other companies have only transient
 * streams, opened on a random instance — fresh or resuming — held a moment and closed, with pauses longer than the
 * (short) BUS_INTEREST_LINGER_MS, so each instance subscribes to and unsubscribes from their subjects again and
 * again while the writer commits in those companies too.
 *
 * The check, per connection (segment): from the position it resumed after (or its connect id), the data frames are
 * exactly the logged positions of its company and filter, in order, each once, with the logged payload — except that
 * a `reset` at head H lets it skip positions ≤ H. Each client's last connection must reach the final head. Zero
 * undetected gaps.
 */
const RAW_CLIENTS = Number(process.env.CHAOS_RAW ?? 160);
const ES_CLIENTS = Number(process.env.CHAOS_ES ?? 40);
const IDEAS = Number(process.env.CHAOS_IDEAS ?? 2000);
/** Companies with transient streams only, and their streams each (subscriptions come and go). */
const TRANSIENT_COMPANIES = Number(process.env.CHAOS_TRANSIENT_COMPANIES ?? 4);
const TRANSIENT_PER_COMPANY = Number(process.env.CHAOS_TRANSIENT_STREAMS ?? 3);
const INTEREST_LINGER_MS = 300;
const WRITER_CONCURRENCY = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nOf = (id: string): number => Number(id.slice(id.lastIndexOf('-') + 1));

type Instance = ServiceProcess;

/** A built service process (a real instance) on the shared database and NATS, once it reports ready. */
const startInstance = (env: Record<string, string>): Promise<Instance> => startServiceProcess({ ...env, LOG_LEVEL: 'warn' }, { until: 'ready' });

type Frame = { kind: 'data'; n: number; data: string } | { kind: 'reset'; n: number };

/** One connection of a client: where it resumed after (null: fresh, known from its connect id) and what it got. */
interface Segment {
  after: number | null;
  connectId: number | null;
  frames: Frame[];
  live: boolean;
  /**
   * An `eventsource` reconnect without Last-Event-ID: the package (eventsource-parser) ignores the `id:` of the
   * data-less connect block, unlike the WHATWG algorithm, so a client cut before its first data frame reconnects
   * fresh and the server cannot know what it missed. Such a segment is checked from its first frame on.
   */
  unanchored?: boolean;
}

interface Client {
  name: string;
  company: string;
  project: string | null;
  segments: Segment[];
  /** Positions of data frames received (any connection), for resuming with an older id. */
  seen: number[];
  reconnects: number;
  olderResumes: number;
  stop(): void;
}

/** Parses SSE blocks (`\n\n`-separated) out of a growing buffer. */
function blocks(buf: string): { done: Array<Record<string, string>>; rest: string } {
  const parts = buf.split('\n\n');
  const rest = parts.pop() ?? '';
  const done = parts.map(parseBlock);
  return { done, rest };
}

/** A raw client: parses frames, reconnects itself after a cut or an end, with its last id or sometimes an older one. */
function rawClient(
  name: string,
  baseUrl: string | (() => string),
  company: string,
  project: string | null,
  cookie: string,
  epoch: () => string,
  active: () => boolean,
  transient?: { hold: () => number; pause: () => number; freshChance: number },
): Client & { cut(): boolean } {
  let req: http.ClientRequest | null = null;
  let stopped = false;
  let lastId: string | null = null;
  const client: Client & { cut(): boolean } = {
    name,
    company,
    project,
    segments: [],
    seen: [],
    reconnects: 0,
    olderResumes: 0,
    stop: () => {
      stopped = true;
      req?.destroy();
    },
    cut: () => {
      if (!req || !client.segments.length || !client.segments[client.segments.length - 1].live) return false;
      req.destroy();
      return true;
    },
  };
  const connect = () => {
    if (stopped) return;
    let resumeFrom = lastId;
    if (resumeFrom !== null && client.seen.length > 5 && Math.random() < 0.25) {
      // An older id it did see: the replay must give the same frames again, from there.
      resumeFrom = `${epoch()}-${client.seen[Math.floor(Math.random() * client.seen.length)]}`;
      client.olderResumes++;
    }
    // A transient stream sometimes comes back fresh: its connect id (the head when it opened) anchors it.
    if (transient && Math.random() < transient.freshChance) resumeFrom = null;
    const seg: Segment = { after: resumeFrom === null ? null : nOf(resumeFrom), connectId: null, frames: [], live: false };
    client.segments.push(seg);
    const url = `${typeof baseUrl === 'string' ? baseUrl : baseUrl()}/api/events${project ? `?projectUuid=${project}` : ''}`;
    const headers: Record<string, string> = { cookie, accept: 'text/event-stream' };
    if (resumeFrom !== null) headers['last-event-id'] = resumeFrom;
    // Until the connect block arrives, the client's own resume point stays what it sent.
    if (resumeFrom !== null) lastId = resumeFrom;
    req = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        seg.frames.push({ kind: 'reset', n: -1 }); // marks a refused connection (should not happen)
        res.resume();
        return;
      }
      seg.live = true;
      // A transient stream closes itself after a while, as long as the writer runs; its last connection stays.
      if (transient && active()) {
        const hold = setTimeout(() => {
          if (active()) req?.destroy();
        }, transient.hold());
        res.once('close', () => clearTimeout(hold));
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const { done, rest } = blocks(buf + chunk);
        buf = rest;
        for (const f of done) {
          if (f.id !== undefined) lastId = f.id;
          if (f.event === 'reset') seg.frames.push({ kind: 'reset', n: nOf(f.id) });
          else if (f.data !== undefined) {
            const n = nOf(f.id);
            seg.frames.push({ kind: 'data', n, data: f.data });
            client.seen.push(n);
          } else if (f.id !== undefined && seg.connectId === null) seg.connectId = nOf(f.id);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      seg.live = false;
      if (stopped) return;
      client.reconnects++;
      setTimeout(connect, transient && active() ? transient.pause() : Math.random() * (active() ? 300 : 50));
    });
  };
  connect();
  return client;
}

/** A real `eventsource` client (through a cutting proxy); each (re)connect is a segment, its Last-Event-ID seen in fetch. */
function esClient(name: string, baseUrl: string, company: string, project: string | null, cookie: string, startHead: number): Client {
  const client: Client = { name, company, project, segments: [], seen: [], reconnects: 0, olderResumes: 0, stop: () => es.close() };
  const es = new EventSource(`${baseUrl}/api/events${project ? `?projectUuid=${project}` : ''}`, {
    fetch: (input, init) => {
      const headers: Record<string, string> = { ...(init?.headers as Record<string, string>), cookie };
      const last = headers['Last-Event-ID'] ?? null;
      if (client.segments.length) client.reconnects++;
      // A fresh first connection is opened before any write: it starts after the head read before the clients.
      const first = client.segments.length === 0;
      client.segments.push({ after: last !== null ? nOf(last) : first ? startHead : null, connectId: null, frames: [], live: true, unanchored: last === null && !first });
      return fetch(input, { ...init, headers });
    },
  });
  const seg = () => client.segments[client.segments.length - 1];
  es.addEventListener('message', (e) => {
    seg().frames.push({ kind: 'data', n: nOf(e.lastEventId), data: e.data });
    client.seen.push(nOf(e.lastEventId));
  });
  es.addEventListener('reset', (e) => seg().frames.push({ kind: 'reset', n: nOf((e as MessageEvent).lastEventId) }));
  return client;
}

describe('change stream under chaos: two instances, NATS restarts, cut sockets, old resumes', () => {
  let world: World;
  let nats: TestNatsServer;
  let a: Instance;
  let b: Instance;
  const proxies: CutProxy[] = [];

  beforeAll(() => ensureBuilt(), 180_000);

  afterAll(async () => {
    for (const p of proxies) await p.close().catch(() => undefined);
    for (const i of [a, b]) i?.proc.kill('SIGKILL');
    await nats?.stop();
    await world?.close();
  });

  it('every client gets every event of its filter exactly once in order, or a reset covering the hole', async () => {
    const t0 = Date.now();
    world = await World.database();
    const db = world.db;
    const f = world.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    nats = await TestNatsServer.start();
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      BUS_SUBJECT_PREFIX: `ch${randomUUID().slice(0, 8)}`,
      SSE_HEARTBEAT_MS: '500',
      SSE_RETRY_MS: '200',
      SSE_MAX_STREAMS_PER_USER: '10000',
      BUS_INTEREST_LINGER_MS: String(INTEREST_LINGER_MS),
    };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    const instances = [a, b];
    const httpA = new HttpClient(a.url);
    await httpA.login(user.email, user.password);
    const cookie = httpA.cookie!;
    const httpB = new HttpClient(b.url);
    httpB.cookie = cookie;
    const projects: string[] = [];
    for (const name of ['Red', 'Blue']) {
      const res = await httpA.post('/api/projects', { name });
      expect(res.status).toBe(201);
      projects.push(res.body.data.uuid);
    }
    // The companies with transient streams: one user and one project each.
    const transients: Array<{ uuid: string; cookie: string; http: [HttpClient, HttpClient]; project: string }> = [];
    for (let t = 0; t < TRANSIENT_COMPANIES; t++) {
      const c = await f.company();
      const u = await f.user(c.uuid);
      const viaA = new HttpClient(a.url);
      await viaA.login(u.email, u.password);
      const viaB = new HttpClient(b.url);
      viaB.cookie = viaA.cookie;
      const res = await viaA.post('/api/projects', { name: `Transient ${t}` });
      expect(res.status).toBe(201);
      transients.push({ uuid: c.uuid, cookie: viaA.cookie!, http: [viaA, viaB], project: res.body.data.uuid });
    }
    const head = async (key = company.uuid): Promise<number> =>
      Number((await db.dataSource.query(`SELECT coalesce(max(position), 0)::int AS p FROM stream_head WHERE stream = 'c' AND key = $1`, [key]))[0].p);
    const startHead = await head();
    const [{ epoch }] = await db.dataSource.query(`SELECT epoch FROM stream_epoch`);

    // The clients: raw ones on both instances (a quarter filtered on a project), real EventSources behind cut proxies.
    let writing = true;
    const raws: Array<ReturnType<typeof rawClient>> = [];
    for (let i = 0; i < RAW_CLIENTS; i++) {
      const project = i % 4 === 3 ? projects[i % 8 === 3 ? 0 : 1] : null;
      raws.push(rawClient(`raw${i}`, instances[i % 2].url, company.uuid, project, cookie, () => epoch, () => writing));
    }
    // Transient streams: a random instance each time, held 100–900 ms, then away 0–1,500 ms (mostly past the linger).
    const randomInstance = () => instances[Math.floor(Math.random() * 2)].url;
    const transientClients: Array<ReturnType<typeof rawClient>> = [];
    for (const [t, tc] of transients.entries()) {
      for (let i = 0; i < TRANSIENT_PER_COMPANY; i++) {
        const hold = () => 100 + Math.random() * 800;
        const pause = () => Math.random() * 1500;
        transientClients.push(rawClient(`transient${t}.${i}`, randomInstance, tc.uuid, i === 2 ? tc.project : null, tc.cookie, () => epoch, () => writing, { hold, pause, freshChance: 0.3 }));
      }
    }
    for (const inst of instances) proxies.push(await CutProxy.start(inst.url));
    const ess: Client[] = [];
    for (let i = 0; i < ES_CLIENTS; i++) ess.push(esClient(`es${i}`, proxies[i % 2].url, company.uuid, i % 5 === 4 ? projects[i % 2] : null, cookie, startHead));
    const clients: Client[] = [...raws, ...ess, ...transientClients];
    // All connected (raw ones have their connect block, real ones their first segment open) before any write.
    for (let t = 0; ; t++) {
      if (raws.every((c) => c.segments[0]?.connectId !== null) && ess.every((c) => c.segments.length > 0)) break;
      if (t > 600) throw new Error('clients did not connect');
      await sleep(50);
    }
    await sleep(500);

    // The writer: ideas through both instances, alternating projects, some concurrency.
    const tWrite = Date.now();
    let next = 0;
    let failed = 0;
    const writer = Promise.all(
      Array.from({ length: WRITER_CONCURRENCY }, async () => {
        for (let i = next++; i < IDEAS; i = next++) {
          // Every fourth idea goes to a company of transient streams (through either instance).
          const tc = TRANSIENT_COMPANIES && i % 4 === 3 ? transients[(i >> 2) % TRANSIENT_COMPANIES] : null;
          const http = tc ? tc.http[(i >> 3) % 2] : i % 2 ? httpB : httpA;
          const path = tc ? `/api/projects/${tc.project}/ideas` : `/api/projects/${projects[(i >> 1) % 2]}/ideas`;
          const res = await http.post(path, { title: `idea ${i}` }).catch(() => null);
          if (res?.status !== 201) failed++;
        }
      }),
    ).finally(() => (writing = false));

    // The chaos: random cuts all along, and nats-server killed and restarted twice.
    let cuts = 0;
    const cutter = (async () => {
      while (writing) {
        await sleep(100 + Math.random() * 200);
        for (let k = 0; k < 3; k++) if (raws[Math.floor(Math.random() * raws.length)].cut()) cuts++;
        if (Math.random() < 0.5) cuts += proxies[Math.floor(Math.random() * 2)].cutRandom(1);
      }
    })();
    const natsChaos = (async () => {
      for (const at of [0.3, 0.65]) {
        while (writing && next < IDEAS * at) await sleep(50);
        if (!writing) return;
        await nats.stop();
        await sleep(1500 + Math.random() * 1000);
        await nats.start();
      }
    })();
    await writer;
    await Promise.all([cutter, natsChaos]);
    const writeMs = Date.now() - tWrite;

    // Quiescence: the expected frames per filter, from the log; wait until every client's live segment reached its end.
    // Per company: the logged frames (contiguous from 1) and what each filter's last position is.
    type Row = { n: number; project: string | null; payload: string };
    const logs = new Map<string, { finalHead: number; byN: Map<number, Row>; rows: Row[] }>();
    for (const key of [company.uuid, ...transients.map((t) => t.uuid)]) {
      const finalHead = await head(key);
      const rows: Row[] = await db.dataSource.query(
        `SELECT position::int AS n, project_uuid AS project, payload FROM stream_log WHERE stream = 'c' AND key = $1 AND position > $2 ORDER BY stream_log.position`,
        [key, 0],
      );
      expect(rows.map((r) => r.n)).toEqual(Array.from({ length: finalHead }, (_, i) => i + 1));
      logs.set(key, { finalHead, rows, byN: new Map(rows.map((r) => [r.n, r])) });
    }
    const finalHead = logs.get(company.uuid)!.finalHead;
    const lastOf = (c: Client) => logs.get(c.company)!.rows.filter((r) => c.project === null || r.project === c.project).at(-1)?.n ?? 0;
    const reached = (c: Client) => {
      const seg = c.segments.at(-1);
      if (!seg?.live) return false;
      const want = lastOf(c);
      const got = Math.max(seg.after ?? seg.connectId ?? (seg.unanchored ? 0 : -1), ...seg.frames.map((fr) => fr.n));
      return got >= want;
    };
    let waitedMs = 0;
    while (!clients.every(reached) && waitedMs < 30_000) {
      await sleep(250);
      waitedMs += 250;
    }
    await sleep(1500); // a few more heartbeats: anything extra (a duplicate) would show
    for (const c of clients) c.stop();

    // The check, per segment.
    const problems: string[] = [];
    let resets = 0;
    let frames = 0;
    let unanchored = 0;
    for (const c of clients) {
      const { byN, finalHead: last } = logs.get(c.company)!;
      c.segments.forEach((seg, si) => {
        if (seg.unanchored) unanchored++;
        let cursor = seg.after ?? seg.connectId ?? (seg.unanchored && seg.frames[0] ? seg.frames[0].n - 1 : null);
        if (cursor === null) {
          if (seg.unanchored) return;
          if (seg.frames.length) problems.push(`${c.name}#${si}: frames without a connect id`);
          return;
        }
        for (const fr of seg.frames) {
          if (fr.kind === 'reset') {
            resets++;
            if (fr.n < 0) problems.push(`${c.name}#${si}: connection refused`);
            else cursor = Math.max(cursor, fr.n);
            continue;
          }
          frames++;
          // The next position of the filter after the cursor.
          let want: number = cursor + 1;
          while (want <= last && c.project !== null && byN.get(want)!.project !== c.project) want++;
          if (fr.n !== want) {
            problems.push(`${c.name}#${si} (after ${seg.after ?? `connect ${seg.connectId}`}): got ${fr.n}, expected ${want}`);
            return;
          }
          if (fr.data !== byN.get(fr.n)!.payload && JSON.stringify(JSON.parse(fr.data)) !== JSON.stringify(JSON.parse(byN.get(fr.n)!.payload))) {
            problems.push(`${c.name}#${si}: payload differs at ${fr.n}`);
          }
          cursor = fr.n;
        }
      });
      if (!reached(c)) {
        const seg = c.segments.at(-1)!;
        problems.push(`${c.name}: ended at ${Math.max(seg.after ?? -1, seg.connectId ?? -1, ...seg.frames.map((fr) => fr.n))} (live ${seg.live}), expected ${lastOf(c)}`);
      }
    }
    // Subscriptions really came and went on both instances (read from their metrics).
    const churn = { subscribes: 0, unsubscribes: 0 };
    for (const inst of instances) {
      const text = await (await fetch(`${inst.url}/metrics`)).text();
      churn.subscribes += Number(/^svc_bus_subscribes_total\{kind="change"\} (\d+)/m.exec(text)?.[1] ?? 0);
      churn.unsubscribes += Number(/^svc_bus_unsubscribes_total\{kind="change"\} (\d+)/m.exec(text)?.[1] ?? 0);
    }
    const transientSegments = transientClients.reduce((n, c) => n + c.segments.length, 0);
    const reconnects = clients.reduce((s, c) => s + c.reconnects, 0);
    const older = clients.reduce((s, c) => s + c.olderResumes, 0);
    const summary = {
      ideas: IDEAS,
      failedWrites: failed,
      positions: finalHead - startHead,
      streams: clients.length,
      raw: RAW_CLIENTS,
      eventsource: ES_CLIENTS,
      transient: transientClients.length,
      transientSegments,
      transientPositions: transients.reduce((n, t) => n + logs.get(t.uuid)!.finalHead, 0),
      ...churn,
      cuts: cuts,
      reconnects,
      olderResumes: older,
      resets,
      unanchoredEsReconnects: unanchored,
      framesChecked: frames,
      writeMs,
      quiescenceWaitMs: waitedMs,
      totalMs: Date.now() - t0,
    };
    console.log(`stream-chaos: ${JSON.stringify(summary)}`);
    expect(problems.slice(0, 30)).toEqual([]);
    if (TRANSIENT_COMPANIES) expect(churn.unsubscribes).toBeGreaterThanOrEqual(TRANSIENT_COMPANIES * 2);
    expect(a.output()).not.toMatch(/"level":"fatal"/);
    expect(b.output()).not.toMatch(/"level":"fatal"/);
  }, 300_000);
});
