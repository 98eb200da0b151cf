/**
 * Self time of a V8 .cpuprofile by area of the code (from each frame's script URL), and the top functions.
 * Native frames (builtins such as JSON.stringify, which carry no URL) count for the area of their nearest caller that
 * has one. `(idle)` is left out of the total.
 * CLI: `node dist-bench/bench/lib/profile-summary.js FILE.cpuprofile [requests [cpuMs]]`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** First matching rule wins; tested against the frame's URL (or the special names in parentheses). */
const AREAS: Array<[string, RegExp]> = [
  ['GC', /^\(garbage collector\)$/],
  ['V8/libuv outside JS (program)', /^\(program\)$/],
  ['API-key lookup (auth)', /\/src\/shared\/auth\//],
  ['pg driver + typeorm', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass|postgres-[a-z]+|typeorm)\//],
  ['SDK: zod schemas (classification/validation)', /node_modules\/zod\//],
  ['SDK: ajv', /node_modules\/ajv/],
  ['SDK (@modelcontextprotocol)', /node_modules\/@modelcontextprotocol\//],
  ['our MCP endpoint + registry', /\/src\/modules\/tools\/(mcp-endpoint|tool-registry|mcp-errors)/],
  ['Nest controller/guards/filter (ours)', /\/src\/modules\/tools\/(mcp\.controller|mcp\.guards|mcp-exception\.filter)/],
  ['tool call pipeline (interceptor, pipes, args)', /\/src\/modules\/tools\/|node_modules\/(class-validator|class-transformer|validator)\/|\/src\/shared\/validation\//],
  ['tool handlers + services (ours)', /\/src\/modules\//],
  ['logging (pino)', /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format)|\/src\/shared\/logging\//],
  ['metrics (prom-client)', /node_modules\/prom-client\/|\/src\/shared\/metrics\//],
  ['our HTTP middlewares', /\/src\/shared\/http\/|\/src\/(main|bootstrap|app)/],
  ['Nest + Express router', /node_modules\/(@nestjs|express|router|body-parser|path-to-regexp|rxjs|helmet|reflect-metadata|finalhandler|send|on-finished|content-type|type-is|raw-body|iconv-lite|qs|cookie|vary|depd|mime-types|negotiator|accepts|media-typer|statuses|http-errors)\//],
  ['other src/', /\/src\//],
  ['bench server code', /\/bench\//],
  ['web Request/Headers/Response (undici)', /^node:internal\/deps\/undici|internal\/(fetch|webstreams|url|blob|deps\/undici)/],
  ['promise/microtask machinery (node)', /^node:(internal\/process\/task_queues|async_hooks|internal\/async_hooks)/],
  ['node http/net/streams', /^node:(internal\/)?(_http|http|net|stream|streams|internal\/streams|internal\/stream_base_commons|timers|internal\/timers|buffer|events)/],
  ['node other', /^node:/],
  ['other node_modules', /node_modules\//],
];

/**
 * Stages of one tool call (issue 29): what part of the request a sample's time serves, whatever code ran it. A sample
 * belongs to the stage of the innermost frame on its stack that a rule matches (rules are tried in order on each frame,
 * by function name and URL); node's own frames (sockets, streams, promises) and native builtins match nothing, so
 * their time goes to the code that called them — pg's socket writes to the database driver, JSON.stringify to
 * whoever serializes. Time with no matching frame on its stack goes to a fallback by its own frame's URL.
 */
export const STAGES: Array<[string, (fn: string, url: string) => boolean]> = [
  ['GC', (fn) => fn === '(garbage collector)'],
  ['V8/libuv outside JS (program)', (fn) => fn === '(program)'],
  ['logging (pino, request log)', (_, u) => /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format|on-exit-leak-free)|\/src\/shared\/logging\/|request-logging\.middleware/.test(u)],
  ['metrics (prom-client)', (_, u) => /node_modules\/prom-client\/|\/src\/shared\/metrics\//.test(u)],
  ['request deadline', (_, u) => /request-deadline\.interceptor|client-gone/.test(u)],
  ['database driver (pg, typeorm)', (_, u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-[a-z]+|typeorm)\/|\/src\/shared\/database\//.test(u)],
  ['API-key lookup (guard, credential resolver)', (_, u) => /\/src\/shared\/auth\/|\/src\/modules\/identity\//.test(u)],
  ['serialization of content + structuredContent (ours)', (_, u) => /tool-result\./.test(u)],
  ['argument validation (pipe, class-validator)', (_, u) => /tool-arguments|node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|\/src\/shared\/validation\//.test(u)],
  ['guards (key guard, rate limit, Origin, tool permission, Nest guard runner)', (_, u) => /mcp\.guards|mcp-rate-limit|tool-permission\.guard|node_modules\/@nestjs\/throttler\/|@nestjs\/core\/guards\//.test(u)],
  ['tool pipeline (registry, interceptor, external context, rxjs)', (_, u) => /tool-registry|tool-call\.interceptor|tool-exception\.filter|@nestjs\/core\/(helpers\/external|interceptors|pipes|exceptions)|node_modules\/rxjs\//.test(u)],
  ['service (tool handler, task service, record mapping)', (_, u) => /\/src\/modules\/(?!tools\/|tool-kit\/)/.test(u)],
  ['SDK dispatch (protocol, transport, zod, ajv)', (_, u) => /node_modules\/(@modelcontextprotocol|zod|ajv)/.test(u)],
  ['HTTP + body (express, Nest router, our endpoint, web Request/Response)', (_, u) => /\/src\/modules\/tools\/|node_modules\/(@nestjs|express|router|body-parser|path-to-regexp|helmet|finalhandler|send|on-finished|content-type|type-is|raw-body|qs|cookie|vary|depd|mime-types|negotiator|accepts|media-typer|statuses|http-errors|reflect-metadata)\/|\/src\/shared\/http\/|\/src\/(main|bootstrap|app)|node:internal\/deps\/undici|internal\/(fetch|webstreams|blob)/.test(u)],
  ['context propagation (AsyncLocalStorage, async hooks)', (_, u) => /^node:(async_hooks|internal\/async_hooks|internal\/async_local_storage)/.test(u)],
  ['bench server code (bare)', (_, u) => /\/bench\//.test(u)],
];
/** Fallbacks for samples with no stage frame on their stack, by their own frame's URL. */
const STAGE_FALLBACK: Array<[string, RegExp]> = [
  ['HTTP + body (express, Nest router, our endpoint, web Request/Response)', /^node:(internal\/)?(_http|http|net|stream|streams|internal\/streams|internal\/stream_base_commons|buffer|events)/],
  ['promise/microtask machinery (node)', /^node:(internal\/process\/task_queues|internal\/timers|timers)/],
];

export function areaOf(url: string): string | null {
  if (!url) return null;
  for (const [name, re] of AREAS) if (re.test(url)) return name;
  return 'other';
}

export interface ProfileSummary {
  /** Sampled time (wall clock, idle excluded). */
  totalMs: number;
  /** Measured CPU time of the window, when given. */
  cpuMs: number | null;
  areas: Array<{ area: string; ms: number; pct: number; usPerReq: number | null }>;
  /** The same time by stage of the request (STAGES): innermost matching frame on the stack. */
  stages: Array<{ area: string; ms: number; pct: number; usPerReq: number | null }>;
  top: Array<{ fn: string; where: string; ms: number; pct: number }>;
}

/**
 * `cpuUs`: the process's CPU time over the profiled window (from /proc), when known. The sampler's clock is wall time:
 * on a busy machine a descheduled thread's time lands on whatever frame was running, so a µs/request column is
 * the sampled share scaled to this measured CPU rather than the raw sampled time.
 */
export function summarize(file: string, requests?: number, cpuUs?: number, topN = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const special = (n: ProfileNode) => (/^\(.*\)$/.test(n.callFrame.functionName) ? n.callFrame.functionName : '');
  const areaCache = new Map<number, string>();
  const area = (id: number): string => {
    const cached = areaCache.get(id);
    if (cached) return cached;
    const n = byId.get(id)!;
    let a = areaOf(special(n) || n.callFrame.url);
    if (a === null) {
      const up = parent.get(id);
      a = up === undefined ? 'native (no caller)' : area(up);
    }
    areaCache.set(id, a);
    return a;
  };
  const stageCache = new Map<number, string | null>();
  const stageOf = (id: number): string | null => {
    if (stageCache.has(id)) return stageCache.get(id)!;
    const n = byId.get(id)!;
    let st: string | null = STAGES.find(([, match]) => match(n.callFrame.functionName, n.callFrame.url))?.[0] ?? null;
    if (st === null) {
      const up = parent.get(id);
      st = up === undefined ? null : stageOf(up);
    }
    stageCache.set(id, st);
    return st;
  };
  const fallbackStage = (n: ProfileNode): string => {
    for (const [name, re] of STAGE_FALLBACK) if (re.test(n.callFrame.url)) return name;
    return n.callFrame.url ? 'other' : 'native, no caller (microtasks, idle-time work)';
  };
  const stages = new Map<string, number>();
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)' || n.callFrame.functionName === '(root)') continue;
    total += us;
    const a = area(id);
    areas.set(a, (areas.get(a) ?? 0) + us);
    const st = stageOf(id) ?? fallbackStage(n);
    stages.set(st, (stages.get(st) ?? 0) + us);
    const where = n.callFrame.url ? `${n.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist-bench)\//, '$1/')}:${n.callFrame.lineNumber + 1}` : `(native, in ${a})`;
    const key = `${n.callFrame.functionName || '(anonymous)'}\t${where}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const scale = cpuUs ? cpuUs / total : 1;
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([a, us]) => ({ area: a, ms: r1(us / 1000), pct: r1((100 * us) / total), usPerReq: requests ? Math.round((us * scale) / requests) : null }));
  return {
    totalMs: r1(total / 1000),
    cpuMs: cpuUs === undefined ? null : r1(cpuUs / 1000),
    areas: rows(areas),
    stages: rows(stages),
    top: [...fns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, topN)
      .map(([k, us]) => {
        const [fn, where] = k.split('\t');
        return { fn, where, ms: r1(us / 1000), pct: r1((100 * us) / total) };
      }),
  };
}

export function formatSummary(label: string, s: ProfileSummary, requests?: number): string {
  const cpu = s.cpuMs === null ? '' : `, ${s.cpuMs} ms of CPU measured${requests ? ` (${Math.round((s.cpuMs * 1000) / requests)} µs/req; the µs/req column is each share of it)` : ''}`;
  const lines = [`profile ${label}: ${s.totalMs} ms sampled (idle excluded)${cpu}${requests ? `, ${requests} requests` : ''}`];
  for (const a of s.areas) lines.push(`  ${a.area.padEnd(48)} ${String(a.pct).padStart(5)} %  ${a.usPerReq === null ? '' : `${String(a.usPerReq).padStart(5)} µs/req`}`);
  lines.push('  by stage (innermost matching frame on the stack):');
  for (const a of s.stages) lines.push(`    ${a.area.padEnd(76)} ${String(a.pct).padStart(5)} %  ${a.usPerReq === null ? '' : `${String(a.usPerReq).padStart(5)} µs/req`}`);
  lines.push('  top self time:');
  for (const t of s.top) lines.push(`    ${String(t.pct).padStart(5)} %  ${t.fn}  ${t.where}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, req, cpuMs] = process.argv.slice(2);
  const requests = req ? Number(req) : undefined;
  console.log(formatSummary(file, summarize(file, requests, cpuMs ? Number(cpuMs) * 1000 : undefined), requests));
}
