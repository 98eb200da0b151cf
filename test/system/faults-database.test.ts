import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { createDataSource } from '../../src/shared/database/data-source.js';
import { World } from '../utils/world.js';
import { LONG_CONTENT, ProposalFactory } from '../factories/proposal.factory.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { HttpClient } from '../utils/http.js';
import { TestPgServer } from '../utils/pg-server.js';
import { openRaw, type RawStream } from '../utils/sse.js';

/**
 * Fault injection: the service's own PostgreSQL (a private server on a free port) is stopped and started again on
 * the same port while a client keeps sending REST and MCP reads and writes to the built service.
 */

/** No request may take longer than this, whatever the database does. */
const REQUEST_BOUND_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'rest-read' | 'rest-write' | 'mcp-read' | 'mcp-write';
const KINDS: Kind[] = ['rest-read', 'rest-write', 'mcp-read', 'mcp-write'];

interface Outcome {
  kind: Kind;
  /** Set for writes: the prefix of the titles of the three tasks it creates. */
  tag: string | null;
  startedAt: number;
  endedAt: number;
  /** HTTP status; 0 when no answer came (network error or the bound was hit). */
  status: number;
  retryAfter: string | null;
  body: any;
  error: string | null;
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

describe('faults: PostgreSQL stopped and restarted during traffic (built service, private PostgreSQL)', () => {
  let pg: TestPgServer;
  let svc: ServiceProcess;
  let ds: DataSource;
  let http: HttpClient;
  let key: string;
  let projectUuid: string;
  let changes: RawStream;
  /** Pending proposals (two document drafts, two task drafts) of their own project, approved while the server stops. */
  let proposals: string[] = [];

  // A stale dist/ is rebuilt first (one build at a time across test files), which may take a while on a busy machine.
  beforeAll(() => ensureBuilt(), 180_000);

  beforeAll(async () => {
    pg = await TestPgServer.start();
    // The service migrates the empty database at start-up.
    svc = await startServiceProcess({ DATABASE_URL: pg.url, NATS_URL: undefined, SSE_HEARTBEAT_MS: '30000' });
    ds = createDataSource({ url: pg.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 2 });
    await ds.initialize();
    const seed = await World.over(ds);
    const companyUuid = (await seed.company()).uuid;
    const user = await seed.user(companyUuid);
    await seed.close();
    http = new HttpClient(svc.url);
    await http.login(user.email, user.password);
    projectUuid = (await http.post('/api/projects', { name: 'Faults' })).body.data.uuid;
    const agent = (await http.post('/api/agents', { name: 'Loader', preset: 'admin_agent' })).body.data;
    key = (await http.post(`/api/agents/${agent.uuid}/keys`, {})).body.data.key;
    const reviewProject = (await http.post('/api/projects', { name: 'Reviews' })).body.data.uuid;
    const ideas = new ProposalFactory(ds);
    proposals = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const idea = await ideas.idea(companyUuid, reviewProject, { type: 'user', uuid: user.uuid });
        const p = await http.post(`/api/projects/${reviewProject}/proposals`, { title: `Review ${i}`, description: 'Why', inputType: 'idea', inputUuids: [idea.uuid] });
        const post = (path: string, body?: unknown) => http.post(`/api/proposals/${p.body.data.uuid}/${path}`, body);
        await post('document-drafts', { type: 'tech_design', title: 'Design', content: LONG_CONTENT });
        await post('document-drafts', { type: 'prd', title: 'Requirements', content: LONG_CONTENT });
        const a = (await post('task-drafts', { title: 'Draft A', acceptanceCriteriaItems: [{ description: 'a' }] })).body.data.draftUuid;
        await post('task-drafts', { title: 'Draft B', acceptanceCriteriaItems: [{ description: 'b' }], dependsOnDraftUuids: [a] });
        const submitted = await post('submit');
        if (submitted.status !== 200) throw new Error(`submit failed: ${submitted.text}`);
        return p.body.data.uuid as string;
      }),
    );
    changes = await openRaw(`${svc.url}/api/events?projectUuid=${projectUuid}`, { cookie: http.cookie! });
    await changes.waitForText(': connected');
  }, 120_000);

  afterAll(async () => {
    changes?.close();
    svc?.kill();
    if (ds?.isInitialized) await ds.destroy().catch(() => undefined);
    await pg?.destroy();
  });

  const tasksInput = (tag: string) =>
    [1, 2, 3].map((i) => ({ title: `${tag} #${i}`, acceptanceCriteriaItems: [{ description: `${tag} first` }, { description: `${tag} second` }] }));

  let seq = 0;
  async function send(kind: Kind): Promise<Outcome> {
    const tag = kind.endsWith('write') ? `${kind}-${++seq}-${randomUUID().slice(0, 8)}` : null;
    let url: string;
    let init: RequestInit;
    if (kind === 'rest-read') {
      url = `${svc.url}/api/projects/${projectUuid}/tasks?pageSize=20`;
      init = { headers: { cookie: http.cookie! } };
    } else if (kind === 'rest-write') {
      url = `${svc.url}/api/projects/${projectUuid}/tasks`;
      init = { method: 'POST', headers: { cookie: http.cookie!, 'content-type': 'application/json' }, body: JSON.stringify({ tasks: tasksInput(tag!) }) };
    } else {
      const call =
        kind === 'mcp-read'
          ? { name: 'svc_list_tasks', arguments: { projectUuid, pageSize: 20 } }
          : { name: 'svc_create_tasks', arguments: { projectUuid, tasks: tasksInput(tag!) } };
      url = `${svc.url}/api/mcp`;
      init = {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, method: 'tools/call', params: call }),
      };
    }
    const startedAt = Date.now();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: the assertions report it
      }
      return { kind, tag, startedAt, endedAt: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after'), body, error: null };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      return { kind, tag, startedAt, endedAt: Date.now(), status: 0, retryAfter: null, body: null, error: `${e.name}: ${e.message} ${e.cause?.code ?? ''}` };
    }
  }

  /** The tool result of an MCP answer with status 200, parsed. */
  const toolResult = (o: Outcome): { isError: boolean; data: any } => ({
    isError: o.body?.result?.isError === true,
    data: JSON.parse(o.body.result.content[0].text),
  });

  /** Success as the client sees it: the normal answer of the route or tool. */
  const succeeded = (o: Outcome): boolean => {
    if (o.kind === 'rest-read') return o.status === 200 && o.body?.success === true && Array.isArray(o.body.data.tasks);
    if (o.kind === 'rest-write') return o.status === 201 && o.body?.success === true && o.body.data.tasks.length === 3;
    if (o.status !== 200 || !o.body?.result) return false;
    const r = toolResult(o);
    return !r.isError && (o.kind === 'mcp-read' ? Array.isArray(r.data.tasks) : r.data.tasks.length === 3);
  };

  /** The documented answer for "database unreachable": 503 + Retry-After: 5 (REST envelope / JSON-RPC -32003), or a tool error. */
  const unavailable = (o: Outcome): boolean => {
    if (o.kind.startsWith('rest')) {
      return (
        o.status === 503 &&
        o.retryAfter === '5' &&
        JSON.stringify(o.body) === JSON.stringify({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } })
      );
    }
    if (o.status === 503) {
      return o.retryAfter === '5' && JSON.stringify(o.body) === JSON.stringify({ jsonrpc: '2.0', error: { code: -32003, message: 'Service unavailable' }, id: null });
    }
    if (o.status !== 200 || !o.body?.result) return false;
    const r = toolResult(o);
    return r.isError && JSON.stringify(r.data) === JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } });
  };

  it('answers 503 SERVICE_UNAVAILABLE (Retry-After: 5) while down, never hangs or 500s, recovers by itself, writes all-or-nothing', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const workers = [0, 1, 2, 3].map(async (w) => {
      for (let i = w; running; i++) {
        outcomes.push(await send(KINDS[i % KINDS.length]));
        await sleep(20);
      }
    });
    const count = (pred: (o: Outcome) => boolean, kind: Kind) => outcomes.filter((o) => o.kind === kind && pred(o)).length;
    const health = async (path: string) => {
      const res = await fetch(`${svc.url}${path}`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
      return { status: res.status, body: await res.json() };
    };

    try {
      await until('traffic flowing', () => KINDS.every((k) => count(succeeded, k) >= 2));

      // Down, with a burst of multi-row writes in flight as the server goes.
      const burst = Array.from({ length: 12 }, (_, i) => send(i % 2 ? 'rest-write' : 'mcp-write').then((o) => void outcomes.push(o)));
      // Staggered around the stop: some may commit before it, others are cut mid-transaction or refused.
      const approvals = proposals.map(async (uuid, i) => {
        await sleep(i * 8);
        const res = await fetch(`${svc.url}/api/proposals/${uuid}/approve`, {
          method: 'POST',
          headers: { cookie: http.cookie!, 'content-type': 'application/json' },
          body: '{}',
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
        return { uuid, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
      });
      await sleep(15);
      const downAt = Date.now();
      await pg.stop();
      await Promise.all(burst);
      const approved = await Promise.all(approvals);
      await until('readiness 503', async () => (await health('/health/ready')).status === 503);
      expect(await health('/health/ready')).toEqual({ status: 503, body: { status: 'unavailable', checks: { database: 'down', bus: 'disabled' } } });
      expect(await health('/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
      await until('503s of every kind', () => KINDS.every((k) => outcomes.filter((o) => o.kind === k && o.startedAt > downAt && unavailable(o)).length >= 2));
      expect(await health('/health/live')).toEqual({ status: 200, body: { status: 'ok' } });

      // Up again on the same port; the service is not touched.
      await pg.start();
      await until('readiness 200', async () => (await health('/health/ready')).status === 200);
      const recoveredAt = Date.now();
      expect(await health('/health/ready')).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'up', bus: 'disabled' } } });
      await until('successes of every kind after recovery', () =>
        KINDS.every((k) => outcomes.filter((o) => o.kind === k && o.startedAt > recoveredAt && succeeded(o)).length >= 3),
      );
      running = false;
      await Promise.all(workers);

      // Every answer is the normal one or the documented 503; none took longer than the bound.
      const odd = outcomes.filter((o) => !succeeded(o) && !unavailable(o));
      if (odd.length) console.log(svc.output().split('\n').filter((l) => /unhandled error|tool failed/.test(l)).join('\n'));
      expect(odd).toEqual([]);
      // Before the stop everything succeeded; once readiness is back, everything succeeds.
      expect(outcomes.filter((o) => (o.endedAt < downAt - 15 || o.startedAt > recoveredAt) && !succeeded(o))).toEqual([]);
      expect(svc.proc.exitCode).toBeNull();
      expect(svc.output()).not.toMatch(/"unhandled error"|"tool failed"|"level":"fatal"/);

      // No half-written state: each write's three tasks, six criteria and three activity rows exist together or not at all.
      await sleep(300); // change events of the last writes
      const events = changes
        .body()
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as { entityType: string; entityUuid: string; action: string });
      const createdEvents = new Set(events.filter((e) => e.entityType === 'task' && e.action === 'created').map((e) => e.entityUuid));
      const writes = outcomes.filter((o) => o.tag !== null);
      const rows: Array<{ tag: string; task_uuid: string; criteria: number; activities: number }> = await ds.query(
        `SELECT split_part(t.title, ' #', 1) AS tag, t.uuid AS task_uuid,
                (SELECT count(*)::int FROM acceptance_criterion c WHERE c.task_uuid = t.uuid) AS criteria,
                (SELECT count(*)::int FROM activity a WHERE a.target_uuid = t.uuid AND a.action = 'created') AS activities
           FROM task t WHERE t.project_uuid = $1`,
        [projectUuid],
      );
      const byTag = new Map<string, typeof rows>();
      for (const r of rows) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
      let absentAfter503 = 0;
      for (const w of writes) {
        const present = byTag.get(w.tag!) ?? [];
        const state = {
          tag: w.tag,
          ok: succeeded(w),
          tasks: present.length,
          complete: present.every((r) => r.criteria === 2 && r.activities === 1),
        };
        if (state.ok) {
          // Answered: fully present, the answer names them, and their change events were delivered.
          expect(state).toEqual({ ...state, tasks: 3, complete: true });
          const answered = w.kind === 'rest-write' ? w.body.data.tasks : toolResult(w).data.tasks;
          expect(answered.map((t: { uuid: string }) => t.uuid).sort()).toEqual(present.map((r) => r.task_uuid).sort());
          expect(present.filter((r) => !createdEvents.has(r.task_uuid))).toEqual([]);
        } else {
          // Refused: all or nothing (a commit whose acknowledgement was lost may be present, then complete).
          expect([0, 3]).toContain(state.tasks);
          expect(state.complete).toBe(true);
          if (state.tasks === 0) absentAfter503++;
        }
      }
      expect(absentAfter503).toBeGreaterThan(0);
      // No change event for anything that is not in the database (nothing published for a rolled-back write).
      const known = new Set(rows.map((r) => r.task_uuid));
      expect([...createdEvents].filter((u) => !known.has(u))).toEqual([]);
      // Each approval (proposal status, two tasks with their criterion, two documents, activities) is whole or absent.
      for (const answer of approved) {
        const [row] = await ds.query(
          `SELECT p.status,
                  (SELECT count(*)::int FROM task t WHERE t.proposal_uuid = p.uuid) AS tasks,
                  (SELECT count(*)::int FROM acceptance_criterion c JOIN task t ON t.uuid = c.task_uuid WHERE t.proposal_uuid = p.uuid) AS criteria,
                  (SELECT count(*)::int FROM document d WHERE d.proposal_uuid = p.uuid) AS documents,
                  (SELECT count(*)::int FROM activity a WHERE a.target_uuid = p.uuid AND a.action = 'approved') AS activities
             FROM proposal p WHERE p.uuid = $1`,
          [answer.uuid],
        );
        const ok = answer.status === 200 && answer.body?.data?.proposal?.status === 'approved';
        if (!ok) {
          expect({ status: answer.status, retryAfter: answer.retryAfter, body: answer.body }).toEqual({
            status: 503,
            retryAfter: '5',
            body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } },
          });
        }
        const whole = { status: 'approved', tasks: 2, criteria: 2, documents: 2, activities: 1 };
        if (ok) expect(row).toEqual(whole);
        else expect([whole, { status: 'pending', tasks: 0, criteria: 0, documents: 0, activities: 0 }]).toContainEqual(row);
      }
      // Tasks of unknown origin (not one of our writes) would mean a write was applied twice.
      expect([...byTag.keys()].filter((t) => !writes.some((w) => w.tag === t))).toEqual([]);
    } finally {
      running = false;
      await Promise.all(workers);
    }
  }, 150_000);

  it('a frozen server (SIGSTOP): every request answers the documented 503 within the bounds, none hangs; thawed, it recovers by itself', async () => {
    const health = async (path: string) => {
      const res = await fetch(`${svc.url}${path}`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
      return res.status;
    };
    await until('ready', async () => (await health('/health/ready')) === 200);
    for (const k of KINDS) expect(succeeded(await send(k))).toBe(true);

    const frozenAt = Date.now();
    pg.freeze();
    let outcomes: Outcome[] = [];
    let thawedAt = 0;
    try {
      // 20 requests of each kind, all at once, as the server stops answering.
      outcomes = await Promise.all(KINDS.flatMap((k) => Array.from({ length: 20 }, () => send(k))));
      await until('readiness 503', async () => (await health('/health/ready')) === 503, 5000);
    } finally {
      thawedAt = Date.now();
      pg.thaw();
    }
    // Every answer is the documented one, none took longer than the bounds (DB_STATEMENT_TIMEOUT_MS 5 s + the
    // client's second, REQUEST_TIMEOUT_MS 8 s), none is a 500 or no answer at all.
    const took = (k: Kind) => outcomes.filter((o) => o.kind === k).map((o) => o.endedAt - o.startedAt).sort((a, b) => a - b);
    const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
    const figures = Object.fromEntries(
      KINDS.map((k) => [k, { p50: pct(took(k), 50), p99: pct(took(k), 99), max: pct(took(k), 100), answered503: outcomes.filter((o) => o.kind === k && unavailable(o)).length }]),
    );
    console.log(`frozen-database answers: ${JSON.stringify(figures)}`);
    const odd = outcomes.filter((o) => !unavailable(o));
    if (odd.length) console.log(JSON.stringify(odd.slice(0, 3)), svc.output().split('\n').filter((l) => /unhandled error|tool failed/.test(l)).slice(-5).join('\n'));
    expect(odd).toEqual([]);
    for (const k of KINDS) expect(pct(took(k), 100)).toBeLessThan(9000);

    // Thawed: readiness and every kind of request come back without a restart.
    await until('readiness 200 after thaw', async () => (await health('/health/ready')) === 200);
    const readyAfterMs = Date.now() - thawedAt;
    let recoveredAfterMs = 0;
    await until('every kind succeeds after thaw', async () => {
      const results = await Promise.all(KINDS.map((k) => send(k)));
      recoveredAfterMs = Date.now() - thawedAt;
      return results.every(succeeded);
    });
    // Writes answered 503 are all-or-nothing (a commit whose acknowledgement was lost may be there, whole).
    for (const w of outcomes.filter((o) => o.tag !== null)) {
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM task WHERE title LIKE $1`, [`${w.tag} #%`]);
      expect([0, 3]).toContain(n);
    }
    expect(svc.proc.exitCode).toBeNull();
    expect(svc.output()).not.toMatch(/"unhandled error"|"level":"fatal"/);
    console.log(`frozen-database: ${JSON.stringify({ frozenForMs: thawedAt - frozenAt, answeredMs: figures, readyAfterThawMs: readyAfterMs, allKindsOkAfterThawMs: recoveredAfterMs })}`);
  }, 120_000);
});
