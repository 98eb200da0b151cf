import { LONG_CONTENT, ProposalFactory } from '../factories/proposal.factory.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { openHeldRequest, type HeldRequest } from '../utils/held-request.js';
import { HttpClient } from '../utils/http.js';
import { openRaw, type RawStream } from '../utils/sse.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';
import { portAccepts } from '../utils/ports.js';

/**
 * Fault injection: SIGTERM while the built service is under load. shutdown.test.ts covers one in-flight login, the
 * refused new connections and exit 0; this adds several kinds of in-flight requests (a long list, a proposal
 * approval, task creation, MCP calls), open SSE streams that must end cleanly, and a steady background load whose
 * every answer must be a complete, normal one.
 */
const GRACE_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('faults: SIGTERM during load (built service)', () => {
  let world: World;
  let db: TestDatabase;
  let svc: ServiceProcess;
  let http: HttpClient;
  let key: string;
  let projectUuid: string;
  let proposalUuid: string;

  // A stale dist/ is rebuilt first (one build at a time across test files), which may take a while on a busy machine.
  beforeAll(() => ensureBuilt(), 180_000);

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    const f = world.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    svc = await startServiceProcess({ DATABASE_URL: db.url, NATS_URL: undefined, SSE_HEARTBEAT_MS: '30000' });
    http = new HttpClient(svc.url);
    await http.login(user.email, user.password);
    projectUuid = (await http.post('/api/projects', { name: 'Shutdown' })).body.data.uuid;
    const agent = (await http.post('/api/agents', { name: 'Worker', preset: 'admin_agent' })).body.data;
    key = (await http.post(`/api/agents/${agent.uuid}/keys`, {})).body.data.key;
    // 200 tasks, so a 100-item list is a request of some weight.
    for (let batch = 0; batch < 4; batch++) {
      const tasks = Array.from({ length: 50 }, (_, i) => ({ title: `Load ${batch}-${i}`, acceptanceCriteriaItems: [{ description: 'done' }] }));
      expect((await http.post(`/api/projects/${projectUuid}/tasks`, { tasks })).status).toBe(201);
    }
    // A pending proposal (two documents, two dependent tasks) for an approval in flight.
    const idea = await new ProposalFactory(db.dataSource).idea(company.uuid, projectUuid, { type: 'user', uuid: user.uuid });
    const p = await http.post(`/api/projects/${projectUuid}/proposals`, { title: 'Approve me', description: 'Why', inputType: 'idea', inputUuids: [idea.uuid] });
    expect(p.status).toBe(201);
    proposalUuid = p.body.data.uuid;
    const post = (path: string, body: unknown) => http.post(`/api/proposals/${proposalUuid}/${path}`, body);
    expect((await post('document-drafts', { type: 'tech_design', title: 'Design', content: LONG_CONTENT })).status).toBe(201);
    expect((await post('document-drafts', { type: 'prd', title: 'Requirements', content: LONG_CONTENT })).status).toBe(201);
    const first = (await post('task-drafts', { title: 'Draft A', acceptanceCriteriaItems: [{ description: 'a' }] })).body.data.draftUuid;
    expect((await post('task-drafts', { title: 'Draft B', acceptanceCriteriaItems: [{ description: 'b' }], dependsOnDraftUuids: [first] })).status).toBe(201);
    expect((await post('submit', undefined)).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    svc?.kill();
    await world?.close();
  });

  const mcpHeaders = () => ({ Authorization: `Bearer ${key}`, Accept: 'application/json, text/event-stream' });
  const toolData = (body: any) => JSON.parse(body.result.content[0].text);

  it('finishes every in-flight request, ends the streams cleanly, refuses new connections and exits 0 in the grace period', async () => {
    const cookie = http.cookie!;
    const streams: RawStream[] = [
      await openRaw(`${svc.url}/api/events`, { cookie }),
      await openRaw(`${svc.url}/api/events?projectUuid=${projectUuid}`, { cookie }),
      await openRaw(`${svc.url}/api/events/notifications`, { cookie }),
    ];
    for (const s of streams) await s.waitForText(': connected');

    // Background load: list reads over pooled keep-alive connections, until the service stops answering.
    type LoadOutcome = { status: number; complete: boolean; error: string | null };
    const load: LoadOutcome[] = [];
    let loading = true;
    const workers = [0, 1, 2].map(async () => {
      while (loading) {
        try {
          const res = await fetch(`${svc.url}/api/projects/${projectUuid}/tasks?pageSize=100`, { headers: { cookie }, signal: AbortSignal.timeout(GRACE_MS) });
          let complete = false;
          try {
            const body = await res.json();
            complete = body.success === true && body.data.tasks.length === 100;
          } catch {
            // a cut body: reported below
          }
          load.push({ status: res.status, complete, error: null });
        } catch (err) {
          // No answer at all: the connection was refused or closed before a response (shutdown has begun).
          load.push({ status: 0, complete: false, error: String((err as { cause?: unknown }).cause ?? err) });
          await sleep(20);
        }
      }
    });
    try {
      await runScenario();
    } finally {
      loading = false;
      await Promise.all(workers);
    }
    // The background load got only complete, normal answers — or no answer at all once the service was gone.
    expect(load.filter((o) => o.status !== 0 && !(o.status === 200 && o.complete))).toEqual([]);
    expect(load.filter((o) => o.complete).length).toBeGreaterThanOrEqual(6);

    async function runScenario(): Promise<void> {
      for (let i = 0; i < 200 && load.filter((o) => o.complete).length < 6; i++) await sleep(25);

      // Requests the server has started (head received, body or head end still on the way).
      const port = svc.port;
      const held: Record<string, HeldRequest> = {
        list: await openHeldRequest(port, 'GET', `/api/projects/${projectUuid}/tasks?pageSize=100`, { headers: { Cookie: cookie } }),
        approve: await openHeldRequest(port, 'POST', `/api/proposals/${proposalUuid}/approve`, { headers: { Cookie: cookie }, json: { reviewNote: 'Go' } }),
        create: await openHeldRequest(port, 'POST', `/api/projects/${projectUuid}/tasks`, {
          headers: { Cookie: cookie },
          json: { tasks: [{ title: 'In flight', acceptanceCriteriaItems: [{ description: 'x' }, { description: 'y' }] }] },
        }),
        mcpList: await openHeldRequest(port, 'POST', '/api/mcp', {
          headers: mcpHeaders(),
          json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_list_tasks', arguments: { projectUuid, pageSize: 100 } } },
        }),
        mcpCheckin: await openHeldRequest(port, 'POST', '/api/mcp', {
          headers: mcpHeaders(),
          json: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_checkin', arguments: {} } },
        }),
      };
      await sleep(200);

      const started = Date.now();
      svc.proc.kill('SIGTERM');

      // The streams end at once, properly (terminating chunk, no reset), while requests are still in flight.
      const cleanly = await Promise.all(streams.map((s) => s.endedCleanly));
      expect(cleanly).toEqual([true, true, true]);
      // Nothing but the greeting and the connect block (the stream's head and its retry) was sent before the end.
      for (const s of streams) expect(s.body().trim()).toMatch(/^: connected\n\nid: [0-9a-z]+-\d+\nretry: \d+$/);
      // New connections are refused.
      let refused = false;
      for (let i = 0; i < 100 && !refused; i++) {
        refused = !(await portAccepts(port));
        if (!refused) await sleep(50);
      }
      expect(refused).toBe(true);
      expect(svc.proc.exitCode).toBeNull();

      // Every in-flight request completes with its normal answer.
      const [list, approve, create, mcpList, mcpCheckin] = await Promise.all(Object.values(held).map((h) => h.finish()));
      // (The creation and approval in flight may land first: 200 tasks or a few more.)
      expect({ status: list.status, success: list.body?.success, count: list.body?.data?.tasks?.length }).toEqual({ status: 200, success: true, count: 100 });
      expect(list.body.data.total).toBeGreaterThanOrEqual(200);
      expect({
        status: approve.status,
        proposal: approve.body?.data?.proposal?.status,
        tasks: approve.body?.data?.materializedTasks?.map((t: { title: string }) => t.title),
        documents: approve.body?.data?.materializedDocuments?.length,
      }).toEqual({ status: 200, proposal: 'approved', tasks: ['Draft A', 'Draft B'], documents: 2 });
      expect({ status: create.status, titles: create.body?.data?.tasks?.map((t: { title: string }) => t.title) }).toEqual({ status: 201, titles: ['In flight'] });
      expect({ status: mcpList.status, isError: mcpList.body?.result?.isError ?? false }).toEqual({ status: 200, isError: false });
      expect(toolData(mcpList.body).tasks).toHaveLength(100);
      expect({ status: mcpCheckin.status, isError: mcpCheckin.body?.result?.isError ?? false }).toEqual({ status: 200, isError: false });
      expect(toolData(mcpCheckin.body)).toHaveProperty('agent');

      // Exit 0 within the grace period, after logging "stopped".
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([svc.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), GRACE_MS + 2000)))]);
      clearTimeout(timer);
      expect({ exit, output: exit?.code === 0 ? '' : svc.output() }).toEqual({ exit: { code: 0, signal: null }, output: '' });
      expect(Date.now() - started).toBeLessThan(GRACE_MS);
      expect(svc.output()).toContain('"msg":"stopped"');
      expect(svc.output()).not.toMatch(/"unhandled error"|"tool failed"|"level":"fatal"/);

      // The approval and creation committed fully: documents and tasks of the proposal, the new task and its criteria.
      const [{ docs, tasks }] = await db.dataSource.query(
        `SELECT (SELECT count(*)::int FROM document WHERE proposal_uuid = $1) AS docs, (SELECT count(*)::int FROM task WHERE proposal_uuid = $1) AS tasks`,
        [proposalUuid],
      );
      expect({ docs, tasks }).toEqual({ docs: 2, tasks: 2 });
      const [{ criteria }] = await db.dataSource.query(
        `SELECT count(*)::int AS criteria FROM acceptance_criterion c JOIN task t ON t.uuid = c.task_uuid WHERE t.project_uuid = $1 AND t.title = 'In flight'`,
        [projectUuid],
      );
      expect(criteria).toBe(2);
    }
  }, 90_000);
});
