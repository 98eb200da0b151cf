/**
 * Stream holder for bench/sse-burst.ts, in its own process so parsing frames never shares the server's event loop.
 * Opens N SSE streams and, per burst, records which change frames each stream got (a batch counted as its frames)
 * and when its last one arrived. Times are process.hrtime (CLOCK_MONOTONIC) in µs, comparable across processes.
 *
 * IPC: {open: {url, cookie, n}} → {opened: {n, failed}}; {mark: true} → {marked: true} (a burst starts: what came before
 * is forgotten); {await: {keys, t0Us, timeoutMs}} → {burst: BurstResult} once every stream has every key (or at the
 * timeout); {close: true} → {closed: true}.
 */
import http from 'node:http';
import { nowUs } from './lib/stats.js';

export interface BurstResult {
  streams: number;
  /** Streams that had every key by the end. */
  complete: number;
  /** Keys missing summed over streams, and frames of the burst received more than once. */
  missing: number;
  duplicates: number;
  /** Per stream: the burst's call response → its last frame of the burst (ms; a frame before the response counts 0). */
  doneMs: number[];
  /** SSE blocks that carried the burst: plain frames and batches, summed over streams. */
  singleBlocks: number;
  batchBlocks: number;
  resets: number;
  /** This process's CPU time during the burst (µs). */
  cpuUs: number;
}

interface Stream {
  keys: Map<string, number>;
  /** Awaited keys this stream does not have yet (while a burst is awaited). */
  remaining: number;
  lastAt: number;
  singles: number;
  batches: number;
  resets: number;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const requests: http.ClientRequest[] = [];
const streams: Stream[] = [];
let drops = 0;
let waiter: { keys: Set<string>; incomplete: number; done: () => void } | null = null;
let cpuAtMark = process.cpuUsage();

/** The same frame or batch reaches every stream: parse each distinct one once. */
const parsed = new Map<string, string[]>();

function keysOf(json: string, batch: boolean): string[] {
  let keys = parsed.get(json);
  if (!keys) {
    const v = JSON.parse(json) as unknown;
    keys = ((batch ? v : [v]) as Array<{ entityType: string; entityUuid: string; action: string }>).map((e) => `${e.entityType}:${e.entityUuid}:${e.action}`);
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(json, keys);
  }
  return keys;
}

/** A key reached a stream: one fewer to wait for when it is awaited and new there. */
function received(s: Stream, key: string): void {
  const n = (s.keys.get(key) ?? 0) + 1;
  s.keys.set(key, n);
  if (n === 1 && waiter?.keys.has(key) && --s.remaining === 0 && --waiter.incomplete === 0) waiter.done();
}

function open(url: string, cookie: string, n: number, done: (opened: number, failed: number) => void): void {
  let started = 0;
  let settled = 0;
  let opened = 0;
  let failed = 0;
  const settle = (ok: boolean): void => {
    settled++;
    if (ok) opened++;
    else failed++;
    if (settled === n) done(opened, failed);
    else next();
  };
  const next = (): void => {
    if (started >= n) return;
    started++;
    const s: Stream = { keys: new Map(), remaining: 0, lastAt: 0, singles: 0, batches: 0, resets: 0 };
    let connected = false;
    const req = http.get(url, { agent, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return settle(false);
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = nowUs();
        if (!connected) {
          connected = true;
          streams.push(s);
          settle(true);
        }
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx).replace(/^\n+/, '');
          buf = buf.slice(idx + 2);
          const data = block.indexOf('data: ');
          if (data < 0) continue;
          if (block.startsWith('event: reset')) {
            s.resets++;
            continue;
          }
          const batch = block.startsWith('event: batch');
          if (batch) s.batches++;
          else s.singles++;
          s.lastAt = at;
          for (const k of keysOf(block.slice(data + 6), batch)) received(s, k);
        }
      });
      res.on('close', () => {
        if (connected) drops++;
      });
    });
    req.on('error', () => {
      if (!connected) settle(false);
    });
    requests.push(req);
  };
  for (let i = 0; i < Math.min(n, 100); i++) next();
}

process.on('message', (msg: { open?: { url: string; cookie: string; n: number }; mark?: true; await?: { keys: string[]; t0Us: number; timeoutMs: number }; close?: true }) => {
  if (msg.open) open(msg.open.url, msg.open.cookie, msg.open.n, (n, failed) => process.send!({ opened: { n, failed } }));
  else if (msg.mark) {
    for (const s of streams) {
      s.keys.clear();
      s.lastAt = 0;
      s.singles = s.batches = s.resets = 0;
    }
    cpuAtMark = process.cpuUsage();
    process.send!({ marked: true });
  } else if (msg.await) {
    const { keys, t0Us, timeoutMs } = msg.await;
    const want = new Set(keys);
    const timer = setTimeout(() => finish(), timeoutMs);
    const finish = (): void => {
      clearTimeout(timer);
      waiter = null;
      let missing = 0;
      let duplicates = 0;
      let completeStreams = 0;
      for (const s of streams) {
        let has = 0;
        for (const k of want) {
          const c = s.keys.get(k) ?? 0;
          if (c) has++;
          if (c > 1) duplicates += c - 1;
        }
        missing += want.size - has;
        if (has === want.size) completeStreams++;
      }
      const result: BurstResult = {
        streams: streams.length,
        complete: completeStreams,
        missing,
        duplicates,
        doneMs: streams.map((s) => Math.max(0, s.lastAt - t0Us) / 1000),
        singleBlocks: streams.reduce((a, s) => a + s.singles, 0),
        batchBlocks: streams.reduce((a, s) => a + s.batches, 0),
        resets: streams.reduce((a, s) => a + s.resets, 0) + drops,
        cpuUs: ((u) => u.user + u.system)(process.cpuUsage(cpuAtMark)),
      };
      process.send!({ burst: result });
    };
    waiter = { keys: want, incomplete: 0, done: finish };
    for (const s of streams) {
      s.remaining = 0;
      for (const k of want) if (!s.keys.has(k)) s.remaining++;
      if (s.remaining) waiter.incomplete++;
    }
    if (!waiter.incomplete) finish();
  } else if (msg.close) {
    for (const r of requests) r.destroy();
    setTimeout(() => process.send!({ closed: true }), 100);
  }
});
