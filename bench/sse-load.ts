/**
 * Load process for bench/sse.ts: opens N idle SSE streams to one URL and reports, for every data frame, the time the
 * last stream received it (process.hrtime, CLOCK_MONOTONIC, comparable across processes on one machine).
 * Protocol over IPC: parent sends {open: {url, n, cookie}} → child answers {ready}; child sends {frame: {id, last}}
 * once all N streams got frame `id`; parent sends {close} → child closes everything and answers {closed}.
 */
import http from 'node:http';

interface OpenMsg {
  url: string;
  n: number;
  cookie: string | null;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
let streams: http.ClientRequest[] = [];
const counts = new Map<string, { n: number; last: bigint }>();
let expected = 0;

/** Opens `n` more streams (batches add up: frames are counted against every open stream). */
function open(msg: OpenMsg, onReady: () => void): void {
  expected += msg.n;
  let connected = 0;
  let started = 0;
  const parallel = 200;
  const startOne = (): void => {
    if (started >= msg.n) return;
    started++;
    const req = http.get(msg.url, { agent, headers: msg.cookie ? { cookie: msg.cookie } : {} }, (res) => {
      let buf = '';
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (first) {
          first = false;
          connected++;
          if (connected === msg.n) onReady();
          else startOne();
        }
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          // Blank lines between blocks are legal SSE; skip them.
          const block = buf.slice(0, idx).replace(/^\n+/, '');
          buf = buf.slice(idx + 2);
          // A data block may start with an `id:` line (the service's @Sse pipeline numbers its frames).
          if (!block.includes('data: ')) continue;
          const now = process.hrtime.bigint();
          const id = /"entityUuid":"([^"]+)"/.exec(block)?.[1] ?? block;
          const c = counts.get(id) ?? { n: 0, last: 0n };
          c.n++;
          c.last = now;
          counts.set(id, c);
          if (c.n === expected) {
            process.send!({ frame: { id, last: c.last.toString() } });
            counts.delete(id);
          }
        }
      });
    });
    req.on('error', (err) => process.send!({ error: String(err) }));
    streams.push(req);
  };
  for (let i = 0; i < parallel; i++) startOne();
}

process.on('message', (msg: { open?: OpenMsg; close?: true }) => {
  if (msg.open) open(msg.open, () => process.send!({ ready: true }));
  if (msg.close) {
    for (const s of streams) s.destroy();
    streams = [];
    expected = 0;
    counts.clear();
    setTimeout(() => process.send!({ closed: true }), 200);
  }
});
