/**
 * `npm run bench:sse-heap` — where an idle SSE connection's bytes go. Heap snapshots of the service (and of the raw
 * node:http server) at 0 and N = 2,000 idle connections (BENCH_N); the difference, per connection, grouped by what
 * V8 calls each object (constructor name for objects, the node type for strings, closures, arrays…), largest first.
 * Modes (BENCH_MODES): raw node:http, bare Express, bare Nest `@Sse` with the service's stream shape, and the service:
 * each step's difference is what that layer adds. Heap only: native memory is in bench:sse's RSS figures.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedded } from '../src/shared/database/embedded-postgres.js';
import { round, sleep } from './lib/stats.js';

const N = Number(process.env.BENCH_N ?? 2000);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const here = fileURLToPath(new URL('.', import.meta.url));

function ask<T>(proc: ChildProcess, msg: unknown): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      if (m && typeof m === 'object' && 'frame' in m) return;
      proc.off('message', on);
      resolve(m as T);
    };
    proc.on('message', on);
    proc.send(msg as never);
  });
}

/** Self size per group of one snapshot. */
function groups(path: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]];
    const name = snap.strings[snap.nodes[i + nameAt]];
    const key = type === 'object' || type === 'native' ? name : type === 'closure' ? `closure ${name || '(anonymous)'}` : `(${type})`;
    const g = out.get(key) ?? { size: 0, count: 0 };
    g.size += snap.nodes[i + sizeAt];
    g.count++;
    out.set(key, g);
  }
  return out;
}

async function measure(mode: 'ours' | 'raw' | 'express' | 'nest', databaseUrl: string, load: ChildProcess, dir: string): Promise<void> {
  const target = fork(join(here, 'sse-target.js'), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { ready } = await ask<{ ready: { url: string; cookie: string | null } }>(target, { start: { mode, databaseUrl } });
  // One connection first, so that what the first one creates once (the company's feed, the heartbeat) is in both.
  await ask(load, { open: { url: ready.url, n: 1, cookie: ready.cookie } });
  const before = (await ask<{ snapshot: string }>(target, { snapshot: join(dir, `${mode}-0.heapsnapshot`) })).snapshot;
  await ask(load, { close: true });
  await ask(load, { open: { url: ready.url, n: N + 1, cookie: ready.cookie } });
  while ((await ask<{ size: number }>(target, { size: true })).size < N + 1) await sleep(20);
  const after = (await ask<{ snapshot: string }>(target, { snapshot: join(dir, `${mode}-${N}.heapsnapshot`) })).snapshot;
  await ask(load, { close: true });
  await ask(target, { stop: true });
  const [g0, g1] = [groups(before), groups(after)];
  const rows = [...g1]
    .map(([key, g]) => ({ key, bytes: (g.size - (g0.get(key)?.size ?? 0)) / N, count: (g.count - (g0.get(key)?.count ?? 0)) / N }))
    .filter((r) => Math.abs(r.bytes) >= 1)
    .sort((a, b) => b.bytes - a.bytes);
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  console.log(`\n${mode}: ${round(total / 1024)} KiB of heap per idle connection (N = ${N})`);
  for (const r of rows.slice(0, TOP)) console.log(`  ${String(Math.round(r.bytes)).padStart(6)} B  ${String(round(r.count, 1)).padStart(5)} × ${r.key}`);
  console.log(JSON.stringify({ mode, n: N, heapPerConnBytes: Math.round(total), top: rows.slice(0, TOP).map((r) => ({ [r.key]: Math.round(r.bytes) })) }));
}

async function main(): Promise<void> {
  let databaseUrl = process.env.DATABASE_URL;
  let embedded: { stop(): Promise<void> } | null = null;
  if (!databaseUrl) {
    embedded = await startEmbedded(mkdtempSync(join(tmpdir(), 'svc-bench-')));
    databaseUrl = (embedded as unknown as { url: string }).url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-heap-'));
  const load = fork(join(here, 'sse-load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    for (const mode of (process.env.BENCH_MODES ?? 'raw,express,nest,ours').split(',') as Array<'ours' | 'raw' | 'express' | 'nest'>) await measure(mode, databaseUrl, load, dir);
  } finally {
    load.kill();
    await embedded?.stop();
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`snapshots kept in ${dir}`);
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
