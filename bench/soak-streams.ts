/**
 * Stream holder for bench/soak.ts, in its own process so parsing frames never shares the server's event loop.
 * Opens N SSE streams (cookies used round-robin), receives every change frame and, for each measured mutation, matches
 * the frames to the mutation's response time `t0` sent by the driver (key = `entityType:entityUuid:action`, unique per
 * measured mutation). Times are process.hrtime (CLOCK_MONOTONIC) in µs, comparable across processes on one machine.
 *
 * IPC: {open: {url, cookies, n}} → {opened: {n, failed}}; many {t0: {key, t0Us, sentUs}}; {result: true} → {result}
 * (finalizes what is pending); {close: true} → {closed: true}.
 */
import http from 'node:http';
import { Histogram, nowUs } from './lib/stats.js';

/** A measured event not on every open stream this long after its t0 counts its missing deliveries as lost. */
const DELIVERY_TIMEOUT_US = 10_000_000;

export interface StreamsResult {
  streamsOpened: number;
  connectFailures: number;
  /** Streams that ended or failed without being closed by us. */
  drops: number;
  dropSamples: string[];
  framesReceived: number;
  /** `event: batch` blocks among them (each counted once here, its frames in framesReceived). */
  batchesReceived: number;
  /** `event: reset` blocks (a stream fell behind or could not resume): each an error of the run. */
  resets: number;
  /** Frames of events we did not measure (the agents' writes). */
  unmatchedFrames: number;
  measuredEvents: number;
  /** Deliveries of measured events that never arrived (stream × event). */
  missedDeliveries: number;
  /** More copies of a measured event than open streams. */
  duplicateDeliveries: number;
  /** Receipts before the mutator had its response (counted as 0 ms). */
  receivedBeforeResponse: number;
  /** Every receipt: mutation response → frame on a stream (µs histogram). */
  receipt: ReturnType<Histogram['toJSON']>;
  /** Per event: mutation response → the last stream's receipt (ms). */
  lastReceiptMs: number[];
  /** The same two measured from when the mutation's request was sent (an upper bound). */
  receiptFromRequest: ReturnType<Histogram['toJSON']>;
  lastReceiptFromRequestMs: number[];
  /** This process's CPU time (µs) since the streams were open: the load shares the machine with the server. */
  cpuUs: number;
}

interface OpenMsg {
  url: string;
  cookies: string[];
  n: number;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const requests: http.ClientRequest[] = [];
let closing = false;
let open = 0;
let opened = 0;
let connectFailures = 0;
let drops = 0;
const dropSamples: string[] = [];
let framesReceived = 0;
let batchesReceived = 0;
let resets = 0;
let unmatchedFrames = 0;
let measuredEvents = 0;
let missedDeliveries = 0;
let duplicateDeliveries = 0;
let receivedBeforeResponse = 0;
const receipt = new Histogram();
const lastReceiptMs: number[] = [];
const receiptFromRequest = new Histogram();
const lastReceiptFromRequestMs: number[] = [];

interface T0 {
  t0Us: number;
  sentUs: number;
}

/** Receipt times per event key, until its t0 is known and every open stream has it. */
const pending = new Map<string, { recv: number[]; firstUs: number }>();
const t0s = new Map<string, T0>();
let cpuAtOpen = process.cpuUsage();

function drop(reason: string): void {
  if (closing) return;
  drops++;
  open--;
  if (dropSamples.length < 5) dropSamples.push(reason);
}

function finalize(key: string, { t0Us, sentUs }: T0, force: boolean): void {
  const p = pending.get(key);
  const recv = p?.recv ?? [];
  if (!force && recv.length < open) return;
  pending.delete(key);
  t0s.delete(key);
  measuredEvents++;
  let last = 0;
  for (const r of recv) {
    const d = r - t0Us;
    if (d < 0) receivedBeforeResponse++;
    receipt.record(d);
    receiptFromRequest.record(r - sentUs);
    if (r > last) last = r;
  }
  if (recv.length > open) duplicateDeliveries += recv.length - open;
  if (recv.length < open) missedDeliveries += open - recv.length;
  if (recv.length) {
    lastReceiptMs.push(Math.max(0, last - t0Us) / 1000);
    lastReceiptFromRequestMs.push((last - sentUs) / 1000);
  }
}

/** Every stream receives the same frame (or batch) at about the same time: parse it once. */
let lastJson = '';
let lastKeys: string[] = [];

/** A data block: one frame's JSON, or (`batch`) a JSON array of frames, each counted as received at `at`. */
function onData(json: string, batch: boolean, at: number): void {
  let keys: string[];
  if (json === lastJson) keys = lastKeys;
  else {
    try {
      const parsed = JSON.parse(json) as unknown;
      const frames = (batch ? parsed : [parsed]) as Array<{ entityType: string; entityUuid: string; action: string }>;
      keys = frames.map((e) => `${e.entityType}:${e.entityUuid}:${e.action}`);
    } catch {
      drop(`unparsable frame: ${json.slice(0, 100)}`);
      return;
    }
    lastJson = json;
    lastKeys = keys;
  }
  if (batch) batchesReceived++;
  for (const key of keys) onFrame(key, at);
}

function onFrame(key: string, at: number): void {
  framesReceived++;
  let p = pending.get(key);
  if (!p) pending.set(key, (p = { recv: [], firstUs: at }));
  p.recv.push(at);
  const t0 = t0s.get(key);
  if (t0 !== undefined && p.recv.length >= open) finalize(key, t0, false);
}

function openStreams(msg: OpenMsg, done: () => void): void {
  let started = 0;
  let settled = 0;
  const settle = (): void => {
    settled++;
    if (settled === msg.n) done();
    else startOne();
  };
  const startOne = (): void => {
    if (started >= msg.n) return;
    const cookie = msg.cookies[started % msg.cookies.length];
    started++;
    let state: 'connecting' | 'open' | 'gone' = 'connecting';
    const gone = (reason: string): void => {
      if (state === 'connecting') {
        connectFailures++;
        settle();
      } else if (state === 'open') drop(reason);
      state = 'gone';
    };
    const req = http.get(msg.url, { agent, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        gone(`status ${res.statusCode}`);
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = nowUs();
        if (state === 'connecting') {
          state = 'open';
          open++;
          opened++;
          settle();
        }
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx).replace(/^\n+/, '');
          buf = buf.slice(idx + 2);
          // A data block is `id: <n>` then `data: <json>` (a batch: `event: batch` first, and a JSON array); comments
          // (`: heartbeat`) carry no data line; a `reset` is a lost delivery here (it never comes unless overloaded).
          const data = block.indexOf('data: ');
          if (data < 0) continue;
          if (block.startsWith('event: reset')) resets++;
          else onData(block.slice(data + 6), block.startsWith('event: batch'), at);
        }
      });
      res.on('close', () => gone(`stream closed by the server (${res.complete ? 'ended' : 'aborted'})`));
    });
    req.on('error', (err) => gone(String(err)));
    requests.push(req);
  };
  const parallel = Math.min(msg.n, 100);
  for (let i = 0; i < parallel; i++) startOne();
  if (msg.n === 0) done();
}

/** Gives up on events whose deliveries are overdue, and forgets frames nobody will claim. */
const sweeper = setInterval(() => {
  const now = nowUs();
  for (const [key, t0] of t0s) if (now - t0.t0Us > DELIVERY_TIMEOUT_US) finalize(key, t0, true);
  for (const [key, p] of pending) {
    if (!t0s.has(key) && now - p.firstUs > DELIVERY_TIMEOUT_US) {
      unmatchedFrames += p.recv.length;
      pending.delete(key);
    }
  }
}, 1000);

process.on('message', (msg: { open?: OpenMsg; t0?: T0 & { key: string }; result?: true; close?: true }) => {
  if (msg.t0) {
    const t0 = { t0Us: msg.t0.t0Us, sentUs: msg.t0.sentUs };
    t0s.set(msg.t0.key, t0);
    const p = pending.get(msg.t0.key);
    if (p && p.recv.length >= open) finalize(msg.t0.key, t0, false);
  } else if (msg.open)
    openStreams(msg.open, () => {
      cpuAtOpen = process.cpuUsage();
      process.send!({ opened: { n: opened, failed: connectFailures } });
    });
  else if (msg.result) {
    for (const [key, t0] of t0s) finalize(key, t0, true);
    for (const p of pending.values()) unmatchedFrames += p.recv.length;
    pending.clear();
    const result: StreamsResult = {
      streamsOpened: opened,
      connectFailures,
      drops,
      dropSamples,
      framesReceived,
      batchesReceived,
      resets,
      unmatchedFrames,
      measuredEvents,
      missedDeliveries,
      duplicateDeliveries,
      receivedBeforeResponse,
      receipt: receipt.toJSON(),
      lastReceiptMs,
      receiptFromRequest: receiptFromRequest.toJSON(),
      lastReceiptFromRequestMs,
      cpuUs: ((u) => u.user + u.system)(process.cpuUsage(cpuAtOpen)),
    };
    process.send!({ result });
  } else if (msg.close) {
    closing = true;
    clearInterval(sweeper);
    for (const r of requests) r.destroy();
    setTimeout(() => process.send!({ closed: true }), 100);
  }
});
