/**
 * Client process for bench/sse-storm.ts: N `GET /api/events` streams, each an EventSource as the HTML spec has it —
 * it remembers the last `id:` it saw and the `retry:` it got, and when its stream ends (or a reconnect fails) it waits
 * that reconnection time and reconnects with `Last-Event-ID`. Times are process.hrtime (CLOCK_MONOTONIC, comparable
 * across processes on one machine), reported as strings of nanoseconds.
 *
 * IPC: {open: {url, cookie, n}} → {opened: {n, failed}}; {freeze} → {frozen: {minN, maxN}} (from now on the streams
 * stop updating their remembered id: they resume from where they were, however much they receive afterwards);
 * {target: H} → {targeted} (a client has caught up once it holds every position up to H since its reconnect);
 * {report} → {report: {...}} when every client has caught up or {report: {timeoutMs}} passes; {close} → {closed}.
 */
import http from 'node:http';

interface Client {
  i: number;
  /** The remembered id (EventSource's last event ID string) and its position. */
  lastId: string | null;
  lastN: number;
  retryMs: number | null;
  req: http.ClientRequest | null;
  /** Connections so far (1 = the first). */
  connects: number;
  dropAt: bigint | null;
  attempts: bigint[];
  refused: number;
  non200: number[];
  reconnectedAt: bigint | null;
  /** After the reconnect: the next position expected, duplicates, holes, resets. */
  expect: number;
  dups: number;
  gaps: number;
  resets: number;
  caughtUpAt: bigint | null;
  connectIdAfter: string | null;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const clients: Client[] = [];
let url = '';
let cookie = '';
let frozen = false;
let target = Infinity;
let closing = false;
const DEFAULT_RETRY_MS = 3000;

const posN = (id: string): number => Number(/-(\d+)$/.exec(id)?.[1] ?? NaN);

function connect(c: Client, onFirst?: (ok: boolean) => void): void {
  const headers: Record<string, string> = { cookie, accept: 'text/event-stream' };
  if (c.lastId !== null) headers['last-event-id'] = c.lastId;
  if (c.connects > 0) c.attempts.push(process.hrtime.bigint());
  const req = http.get(url, { agent, headers }, (res) => {
    if (res.statusCode !== 200) {
      // EventSource fails for good on a non-200; the bench records it and tries again to finish the run.
      c.non200.push(res.statusCode ?? 0);
      res.resume();
      onFirst?.(false);
      res.on('end', () => scheduleReconnect(c));
      return;
    }
    c.connects++;
    if (c.connects > 1) {
      c.reconnectedAt = process.hrtime.bigint();
      c.expect = c.lastN + 1;
    }
    onFirst?.(true);
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let idx: number;
      while ((idx = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, idx);
        buf = buf.slice(idx + 2);
        onBlock(c, block);
      }
    });
    res.on('error', () => undefined);
    res.on('close', () => scheduleReconnect(c));
  });
  req.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNREFUSED') c.refused++;
    onFirst?.(false);
    scheduleReconnect(c);
  });
  c.req = req;
}

function onBlock(c: Client, block: string): void {
  let id: string | null = null;
  let event = 'message';
  let data = false;
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('retry:')) c.retryMs = Number(line.slice(6).trim());
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data = true;
  }
  if (id === null) return;
  const n = posN(id);
  // The remembered id: updated unless frozen (a first connection during the freeze keeps what it had before).
  const remember = !frozen || c.connects > 1;
  if (remember) {
    c.lastId = id;
    c.lastN = n;
  }
  if (c.connects < 2) return;
  if (!data) {
    c.connectIdAfter ??= id;
    return;
  }
  if (event === 'reset') {
    c.resets++;
    c.expect = n + 1;
  } else if (n === c.expect) c.expect++;
  else if (n < c.expect) c.dups++;
  else {
    c.gaps++;
    c.expect = n + 1;
  }
  checkCaughtUp(c);
}

function checkCaughtUp(c: Client): void {
  if (c.caughtUpAt === null && c.connects > 1 && c.expect - 1 >= target) c.caughtUpAt = process.hrtime.bigint();
}

function scheduleReconnect(c: Client): void {
  if (closing || c.req === null) return;
  c.req = null;
  c.dropAt ??= process.hrtime.bigint();
  setTimeout(() => connect(c), c.retryMs ?? DEFAULT_RETRY_MS);
}

function open(n: number, done: (r: { n: number; failed: number }) => void): void {
  let started = 0;
  let finished = 0;
  let failed = 0;
  const next = (): void => {
    if (started >= n) return;
    const c: Client = { i: clients.length, lastId: null, lastN: NaN, retryMs: null, req: null, connects: 0, dropAt: null, attempts: [], refused: 0, non200: [], reconnectedAt: null, expect: 0, dups: 0, gaps: 0, resets: 0, caughtUpAt: null, connectIdAfter: null };
    clients.push(c);
    started++;
    connect(c, (ok) => {
      if (!ok) failed++;
      if (++finished === n) done({ n, failed });
      else next();
    });
  };
  for (let i = 0; i < 200; i++) next();
}

const s = (t: bigint | null): string | null => (t === null ? null : t.toString());

process.on('message', (msg: { open?: { url: string; cookie: string; n: number }; freeze?: true; target?: number; report?: { timeoutMs: number }; close?: true }) => {
  if (msg.open) {
    url = msg.open.url;
    cookie = msg.open.cookie;
    open(msg.open.n, (r) => process.send!({ opened: r }));
  } else if (msg.freeze) {
    frozen = true;
    const ns = clients.map((c) => c.lastN);
    process.send!({ frozen: { minN: Math.min(...ns), maxN: Math.max(...ns), withId: clients.filter((c) => c.lastId !== null).length } });
  } else if (msg.target !== undefined) {
    target = msg.target;
    for (const c of clients) checkCaughtUp(c);
    process.send!({ targeted: true });
  } else if (msg.report) {
    const deadline = Date.now() + msg.report.timeoutMs;
    const poll = (): void => {
      if (clients.every((c) => c.caughtUpAt !== null) || Date.now() > deadline) {
        process.send!({
          report: clients.map((c) => ({
            lastN: c.lastN,
            retryMs: c.retryMs,
            dropAt: s(c.dropAt),
            attempts: c.attempts.map((t) => t.toString()),
            refused: c.refused,
            non200: c.non200,
            reconnectedAt: s(c.reconnectedAt),
            caughtUpAt: s(c.caughtUpAt),
            connects: c.connects,
            dups: c.dups,
            gaps: c.gaps,
            resets: c.resets,
            connectIdAfter: c.connectIdAfter,
            pending: c.req !== null && c.connects < 2,
          })),
        });
      } else setTimeout(poll, 100);
    };
    poll();
  } else if (msg.close) {
    closing = true;
    for (const c of clients) c.req?.destroy();
    setTimeout(() => process.send!({ closed: true }), 200);
  }
});
