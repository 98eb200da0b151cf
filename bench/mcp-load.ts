/**
 * Load process for bench/mcp.ts: C concurrent clients, each POSTing the same JSON-RPC body back to back over its own
 * keep-alive connection for D ms (after a warm-up), timing every request with process.hrtime.
 * Protocol over IPC: parent sends {run: RunMsg} → child answers {result: LoadResult}.
 */
import http from 'node:http';

export interface RunMsg {
  url: string;
  headers: Record<string, string>;
  body: string;
  clients: number;
  durationMs: number;
  warmupMs: number;
  /** A response body containing this string counts as an error (JSON-RPC error or isError result). */
  errorMarker: string[];
  /** Send every measured latency back (for percentiles over several slices). */
  returnLatencies?: boolean;
  /**
   * Bodies that vary (a write that must change something every time): `counter` in the body is replaced by a
   * number unique to each request, `perClient.marker` by `perClient.values[client index % length]`.
   */
  vary?: { counter?: string; perClient?: { marker: string; values: string[] } };
}

export interface LoadResult {
  requests: number;
  errors: number;
  firstError: string | null;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** This load process's own CPU per measured request (µs): it shares the machine with the servers. */
  loadCpuUsPerReq: number;
  /** Size of the last response body (bytes). */
  responseBytes: number;
  /** Every measured latency (ms), when asked for. */
  latencies?: number[];
}

let sequence = 0;

function post(agent: http.Agent, msg: RunMsg, template = msg.body): Promise<{ ok: boolean; text: string; bytes: number }> {
  const body = msg.vary?.counter ? template.replaceAll(msg.vary.counter, String(++sequence)) : template;
  return new Promise((resolve) => {
    const req = http.request(
      msg.url,
      { method: 'POST', agent, headers: { ...msg.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        // Bytes, not text: the markers are ASCII, so searching the UTF-8 bytes finds what searching the decoded text
        // would, without decoding every body (the 70 KB catalogue cost this process more CPU than the servers'
        // small answers, on the cores the servers use).
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          const ok = res.statusCode === 200 && !msg.errorMarker.some((m) => body.includes(m));
          resolve({ ok, text: ok ? '' : `${res.statusCode} ${body.subarray(0, 300).toString('utf8')}`, bytes: body.length });
        });
      },
    );
    req.on('error', (err) => resolve({ ok: false, text: String(err), bytes: 0 }));
    req.end(body);
  });
}

async function run(msg: RunMsg): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: msg.clients });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let responseBytes = 0;
  const start = Date.now();
  const measureFrom = start + msg.warmupMs;
  const end = measureFrom + msg.durationMs;
  let cpu: NodeJS.CpuUsage | null = null;
  const warm = setTimeout(() => (cpu = process.cpuUsage()), msg.warmupMs);
  const perClient = msg.vary?.perClient;
  const client = async (_: unknown, index: number): Promise<void> => {
    const template = perClient ? msg.body.replaceAll(perClient.marker, perClient.values[index % perClient.values.length]) : msg.body;
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      const res = await post(agent, msg, template);
      const t1 = process.hrtime.bigint();
      responseBytes = res.bytes;
      if (Date.now() < measureFrom) continue;
      latencies.push(Number(t1 - t0) / 1e6);
      if (!res.ok) {
        errors++;
        firstError ??= res.text;
      }
    }
  };
  await Promise.all(Array.from({ length: msg.clients }, client));
  clearTimeout(warm);
  const used = process.cpuUsage(cpu ?? undefined);
  agent.destroy();
  const seconds = msg.durationMs / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  const round = (x: number) => Math.round(x * 100) / 100;
  return { requests: sorted.length, errors, firstError, seconds, rps: round(sorted.length / seconds), p50ms: round(pct(50)), p99ms: round(pct(99)), loadCpuUsPerReq: Math.round((used.user + used.system) / Math.max(1, sorted.length)), responseBytes, ...(msg.returnLatencies ? { latencies: sorted } : {}) };
}

process.on('message', (msg: { run?: RunMsg }) => {
  if (msg.run) void run(msg.run).then((result) => process.send!({ result }));
});
