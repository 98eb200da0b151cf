import { World, type WorldAgent } from '../utils/world.js';

/**
 * The exact bytes of svc_get_task and svc_update_task answers, in both protocol eras (docs/tool-conventions.md §1.1): the raw HTTP
 * body is compared, as a string, with one built here from a canonical record written out field by field — not from
 * the product's own mapping — so a change to how the endpoint, the tool pipeline or the record is serialized that
 * moves a single byte fails. The task is seeded with every part of a record (assignee, criteria with a self-check,
 * dependencies both ways, a comment, a reference, an active session) and its timestamps pinned by SQL.
 */
const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];

const T0 = '2026-01-02T03:04:05.678Z';
const T1 = '2026-01-02T03:05:06.789Z';
const T2 = '2026-01-02T03:06:07.891Z';
const T3 = '2026-01-02T03:07:08.912Z';

/** A tools/call request of one era, as the bench and the SDK clients send it. */
function request(era: Era, key: string, name: string, args: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era,
  };
  if (era === '2025-11-25') return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }) };
  headers['mcp-method'] = 'tools/call';
  headers['mcp-name'] = name;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': era,
    'io.modelcontextprotocol/clientInfo': { name: 'bytes', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args, _meta } }) };
}

/** The whole HTTP body of a successful call: the text item, structuredContent when given, the era's envelope. */
function envelope(era: Era, text: string, structured: boolean): string {
  const content = `{"content":[{"type":"text","text":${JSON.stringify(text)}}]${structured ? `,"structuredContent":${text}` : ''}`;
  if (era === '2025-11-25') return `{"result":${content}},"jsonrpc":"2.0","id":7}`;
  const serverInfo = '{"name":"svc","title":"svc: ideas, proposals, tasks and documents","version":"1.0.0"}';
  return `{"result":${content},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":${serverInfo}}},"jsonrpc":"2.0","id":7}`;
}

describe('exact bytes of svc_get_task and svc_update_task answers in both eras (e2e)', () => {
  let app: World;
  let agent: WorldAgent;
  let ownerUuid: string;
  const ids: Record<string, string> = {};

  const ok = (name: string, args: Record<string, unknown>) => app.ok(agent, name, args);

  async function post(era: Era, name: string, args: Record<string, unknown>): Promise<{ status: number; contentType: string | null; body: string }> {
    const { headers, body } = request(era, agent.key, name, args);
    const res = await fetch(`${app.url}/api/mcp`, { method: 'POST', headers, body });
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  }

  /** The canonical record of the seeded task, key by key in the order the answer has them. */
  function canonical(title: string, updatedAt: string): string {
    const agentPerson = { type: 'agent', uuid: agent.uuid, name: 'Bytes agent' };
    const record = {
      uuid: ids.task,
      projectUuid: ids.project,
      proposalUuid: null,
      title,
      status: 'assigned',
      priority: 'high',
      storyPoints: 2.5,
      assignee: { ...agentPerson, assignedAt: T1, assignedBy: agentPerson },
      acceptance: { passed: 0, total: 2 },
      createdAt: T0,
      updatedAt,
      description: 'Pinned "description" with unicode: é ✓ and a\nnewline',
      createdBy: agentPerson,
      acceptanceCriteriaItems: [
        { uuid: ids.c1, description: 'First criterion', required: true, sortOrder: 0, devStatus: 'passed', devEvidence: 'Checked by hand', devMarkedBy: agentPerson, devMarkedAt: T2, status: 'pending', evidence: null, markedBy: null, markedAt: null },
        { uuid: ids.c2, description: 'Second criterion', required: false, sortOrder: 1, devStatus: 'pending', devEvidence: null, devMarkedBy: null, devMarkedAt: null, status: 'pending', evidence: null, markedBy: null, markedAt: null },
      ],
      acceptanceStatus: 'not_started',
      acceptanceSummary: { total: 2, required: 1, passed: 0, failed: 0, pending: 2, requiredPassed: 0, requiredFailed: 0, requiredPending: 1 },
      dependsOn: [{ uuid: ids.before, title: 'Prerequisite', status: 'open' }],
      dependedBy: [{ uuid: ids.after, title: 'Follow-up', status: 'open' }],
      activeSessions: [{ sessionUuid: ids.session, sessionName: 'Bytes session', agentUuid: agent.uuid, checkinAt: T3 }],
      commentCount: 1,
      references: [
        {
          uuid: ids.reference,
          targetType: 'task',
          targetUuid: ids.task,
          type: 'docs',
          url: 'https://example.com/spec',
          title: 'Spec',
          notes: null,
          createdBy: agentPerson,
          createdAt: T2,
          updatedAt: T2,
        },
      ],
    };
    return JSON.stringify(record);
  }

  beforeAll(async () => {
    app = await World.start();
    const c = await app.company('Bytes');
    ownerUuid = (await app.user(c.uuid, { name: 'Owner' })).uuid;
    agent = await app.agent(c.uuid, ownerUuid, { preset: 'admin_agent', name: 'Bytes agent' });
    ids.project = (await ok('svc_admin_create_project', { name: 'Bytes project' })).uuid;
    const { tasks } = await ok('svc_create_tasks', {
      projectUuid: ids.project,
      tasks: [
        { title: 'Prerequisite', acceptanceCriteriaItems: [{ description: 'Done' }], draftUuid: 'p' },
        {
          title: 'Pinned task',
          description: 'Pinned "description" with unicode: é ✓ and a\nnewline',
          priority: 'high',
          storyPoints: 2.5,
          acceptanceCriteriaItems: [{ description: 'First criterion' }, { description: 'Second criterion', required: false }],
          draftUuid: 't',
          dependsOnDraftUuids: ['p'],
        },
        { title: 'Follow-up', acceptanceCriteriaItems: [{ description: 'Later' }], dependsOnDraftUuids: ['t'] },
      ],
    });
    [ids.before, ids.task, ids.after] = tasks.map((t: { uuid: string }) => t.uuid);
    const session = await ok('svc_create_session', { name: 'Bytes session' });
    ids.session = session.uuid;
    // The check-in claims the open task for the agent.
    await ok('svc_session_checkin_task', { sessionUuid: ids.session, taskUuid: ids.task });
    const record = await ok('svc_get_task', { taskUuid: ids.task });
    [ids.c1, ids.c2] = record.acceptanceCriteriaItems.map((c: { uuid: string }) => c.uuid);
    await ok('svc_report_criteria_self_check', { taskUuid: ids.task, criteria: [{ uuid: ids.c1, devStatus: 'passed', devEvidence: 'Checked by hand' }] });
    await ok('svc_add_comment', { targetType: 'task', targetUuid: ids.task, content: 'A comment' });
    ids.reference = (await ok('svc_add_reference', { targetType: 'task', targetUuid: ids.task, type: 'docs', url: 'https://example.com/spec', title: 'Spec' })).uuid;

    const q = (sql: string, params: unknown[]) => app.db.dataSource.query(sql, params);
    await q(`UPDATE task SET created_at = $2, updated_at = $2, assigned_at = $3 WHERE uuid = $1`, [ids.task, T0, T1]);
    await q(`UPDATE acceptance_criterion SET dev_marked_at = $2 WHERE uuid = $1`, [ids.c1, T2]);
    await q(`UPDATE reference SET created_at = $2, updated_at = $2 WHERE uuid = $1`, [ids.reference, T2]);
    await q(`UPDATE session_task_checkin SET checkin_at = $2 WHERE task_uuid = $1`, [ids.task, T3]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each(ERAS)('svc_get_task answers the canonical bytes (%s)', async (era) => {
    const res = await post(era, 'svc_get_task', { taskUuid: ids.task });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toBe(envelope(era, canonical('Pinned task', T0), true));
  });

  it.each(ERAS)('svc_update_task answers the canonical bytes of the record it wrote (%s)', async (era) => {
    const title = `Renamed in ${era} — ✓`;
    const res = await post(era, 'svc_update_task', { taskUuid: ids.task, title: `  ${title}  ` });
    expect(res.status).toBe(200);
    const [{ updated_at: updatedAt }] = (await app.db.dataSource.query(`SELECT updated_at FROM task WHERE uuid = $1`, [ids.task])) as Array<{ updated_at: Date }>;
    // A write tool has no output schema: text only.
    expect(res.body).toBe(envelope(era, canonical(title, updatedAt.toISOString()), false));
    // The read that follows answers the same record.
    const read = await post(era, 'svc_get_task', { taskUuid: ids.task });
    expect(read.body).toBe(envelope(era, canonical(title, updatedAt.toISOString()), true));
    await app.db.dataSource.query(`UPDATE task SET title = 'Pinned task', updated_at = $2 WHERE uuid = $1`, [ids.task, T0]);
  });
});
