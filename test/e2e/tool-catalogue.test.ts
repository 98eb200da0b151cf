import { catalogueSize, TOKEN_BUDGETS, type CatalogueSize } from '../../bench/lib/catalogue-tokens.js';
import { rpc, mcpClientV1 } from '../utils/mcp-client.js';
import { World, type WorldAgent } from '../utils/world.js';
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { readFileSync, writeFileSync } from 'node:fs';
import { ToolRegistry } from '../../src/modules/tool-kit/index.js';
import { renderToolCatalogue } from '../utils/tool-catalogue-doc.js';

/** One app for the whole file; each block below seeds companies of its own. */
let app: World;
beforeAll(async () => {
  app = await World.start();
});
afterAll(() => app.close());

/**
 * docs/tool-conventions.md §1.5: what hosts hand the model — each listed tool's name, title, description and inputSchema as JSON,
 * counted with the cl100k tokenizer over the whole list — stays within each preset's budget. Measured on the real
 * `tools/list` answer of an agent of each preset (`npm run bench:catalogue` prints the same figures).
 */
describe('tool catalogue token budget (docs/tool-conventions.md §1.5, e2e)', () => {
  const sizes = new Map<string, CatalogueSize>();

  beforeAll(async () => {
    const c = await app.company('Budget');
    const owner = await app.user(c.uuid, { name: 'Owner' });
    for (const preset of Object.keys(TOKEN_BUDGETS)) {
      const { key } = await app.ids.agent(c.uuid, owner.uuid, { preset });
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { authorization: `Bearer ${key}` });
      expect(res.status).toBe(200);
      sizes.set(preset, catalogueSize(res.text));
    }
  });

  it.each(Object.entries(TOKEN_BUDGETS))('%s: the counted part of its tools/list fits in %i cl100k tokens', (preset, budget) => {
    const size = sizes.get(preset)!;
    expect(size.tools).toBeGreaterThan(0);
    expect({ preset, ...size, withinBudget: size.counted <= budget }).toEqual({ preset, ...size, withinBudget: true });
  });

  it('counts what the budget says: a larger catalogue costs more', () => {
    const dev = sizes.get('developer_agent')!;
    const admin = sizes.get('admin_agent')!;
    expect(admin.counted).toBeGreaterThan(dev.counted);
    expect(admin.whole).toBeGreaterThan(admin.counted);
  });
});

describe('answer bytes', () => {
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
});

describe('structured output', () => {
  /**
   * docs/tool-conventions.md §1.1: every read-only tool publishes an `outputSchema` and returns the same object as `structuredContent`
   * next to its text item. Each one is called with valid arguments against seeded data through the official SDK client
   * (v1), which validates `structuredContent` against the listed `outputSchema` and throws on a mismatch; the result is
   * also checked here with Ajv, and must deep-equal the parsed text.
   */
  type SdkResult = { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown> };
  interface Listed {
    name: string;
    outputSchema?: Record<string, unknown>;
    annotations?: { readOnlyHint?: boolean };
  }

  describe('structured output of the read-only tools (docs/tool-conventions.md §1.1, e2e)', () => {
    let admin: WorldAgent;
    let listed: Listed[];
    const seeded: Record<string, string> = {};

    const ok = async (name: string, args: Record<string, unknown> = {}) => app.ok(admin, name, args);

    beforeAll(async () => {
      const c = await app.company('Structured');
      const owner = await app.user(c.uuid, { name: 'Owner' });
      admin = await app.agent(c.uuid, owner.uuid, { preset: 'admin_agent', name: 'Structured admin' });
      // The SDK client validates structured results only for tools it has seen listed.
      listed = (await admin.client.listTools()).tools as Listed[];

      const group = await ok('svc_admin_create_project_group', { name: 'Catalogue group' });
      const project = await ok('svc_admin_create_project', { name: 'Catalogue project', groupUuid: group.uuid });
      seeded.groupUuid = group.uuid;
      seeded.projectUuid = project.uuid;
      const idea = await ok('svc_pm_create_idea', { projectUuid: project.uuid, title: 'Catalogue idea', content: 'An idea to elaborate' });
      await ok('svc_pm_create_idea', { projectUuid: project.uuid, title: 'Open idea', parentUuid: idea.uuid });
      await ok('svc_claim_idea', { ideaUuid: idea.uuid });
      await ok('svc_pm_start_elaboration', {
        ideaUuid: idea.uuid,
        depth: 'minimal',
        questions: [
          { id: 'q1', text: 'Who uses it?', category: 'functional', options: [{ id: 'a', label: 'Agents' }, { id: 'b', label: 'Humans', description: 'People' }] },
          { id: 'q2', text: 'How soon?', category: 'scope', options: [{ id: 'a', label: 'Now' }, { id: 'b', label: 'Later' }], required: false },
        ],
      });
      await ok('svc_answer_elaboration', { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a', customText: null }] });
      seeded.ideaUuid = idea.uuid;
      const doc = await ok('svc_pm_create_document', { projectUuid: project.uuid, type: 'spec', title: 'Catalogue spec', content: 'Spec text' });
      seeded.documentUuid = doc.uuid;
      const proposal = await ok('svc_pm_create_proposal', { projectUuid: project.uuid, title: 'Catalogue proposal', inputType: 'document', inputUuids: [doc.uuid] });
      await ok('svc_pm_add_document_draft', { proposalUuid: proposal.uuid, type: 'prd', title: 'Draft doc', content: 'Draft content' });
      await ok('svc_pm_add_task_draft', { proposalUuid: proposal.uuid, title: 'Draft task', acceptanceCriteriaItems: [{ description: 'Works' }] });
      seeded.proposalUuid = proposal.uuid;
      const { tasks } = await ok('svc_create_tasks', {
        projectUuid: project.uuid,
        tasks: [
          { title: 'First task', storyPoints: 2.5, acceptanceCriteriaItems: [{ description: 'Done right' }], draftUuid: 'a' },
          { title: 'Second task', priority: 'high', acceptanceCriteriaItems: [{ description: 'Also done' }], dependsOnDraftUuids: ['a'] },
        ],
      });
      seeded.taskUuid = tasks[0].uuid;
      await ok('svc_add_comment', { targetType: 'task', targetUuid: tasks[0].uuid, content: 'A comment' });
      await ok('svc_add_reference', { targetType: 'task', targetUuid: tasks[0].uuid, type: 'docs', url: 'https://example.com/x', title: 'Link' });
      const session = await ok('svc_create_session', { name: 'Worker' });
      await ok('svc_session_checkin_task', { sessionUuid: session.uuid, taskUuid: tasks[0].uuid });
      seeded.sessionUuid = session.uuid;
    });

    /** Valid arguments for every read-only tool, some more than once (sections, filters). */
    const CALLS = (): Array<[string, Record<string, unknown>]> => [
      ['svc_get_my_assignments', {}],
      ['svc_list_projects', {}],
      ['svc_get_project', { projectUuid: seeded.projectUuid }],
      ['svc_get_ideas', { projectUuid: seeded.projectUuid }],
      ['svc_get_idea', { ideaUuid: seeded.ideaUuid }],
      ['svc_get_available_ideas', { projectUuid: seeded.projectUuid }],
      ['svc_get_documents', { projectUuid: seeded.projectUuid }],
      ['svc_get_document', { documentUuid: seeded.documentUuid }],
      ['svc_get_proposals', { projectUuid: seeded.projectUuid }],
      ['svc_get_proposal', { proposalUuid: seeded.proposalUuid }],
      ['svc_get_proposal', { proposalUuid: seeded.proposalUuid, section: 'documents' }],
      ['svc_get_proposal', { proposalUuid: seeded.proposalUuid, section: 'tasks' }],
      ['svc_get_proposal', { proposalUuid: seeded.proposalUuid, section: 'full' }],
      ['svc_get_task', { taskUuid: seeded.taskUuid }],
      ['svc_list_tasks', { projectUuid: seeded.projectUuid }],
      ['svc_get_available_tasks', { projectUuid: seeded.projectUuid }],
      ['svc_get_unblocked_tasks', { projectUuid: seeded.projectUuid }],
      ['svc_get_activity', { projectUuid: seeded.projectUuid }],
      ['svc_get_comments', { targetType: 'task', targetUuid: seeded.taskUuid }],
      ['svc_get_elaboration', { ideaUuid: seeded.ideaUuid }],
      ['svc_get_project_groups', {}],
      ['svc_get_project_group', { groupUuid: seeded.groupUuid }],
      ['svc_get_group_dashboard', { groupUuid: seeded.groupUuid }],
      ['svc_search', { query: 'Catalogue' }],
      ['svc_search_mentionables', {}],
      ['svc_list_sessions', {}],
      ['svc_get_session', { sessionUuid: seeded.sessionUuid }],
      ['svc_pm_validate_proposal', { proposalUuid: seeded.proposalUuid }],
    ];

    it('lists an object outputSchema for every read-only tool', () => {
      const readOnly = listed.filter((t) => t.annotations?.readOnlyHint === true);
      expect(readOnly.length).toBeGreaterThanOrEqual(25);
      expect(readOnly.filter((t) => (t.outputSchema as { type?: unknown } | undefined)?.type !== 'object').map((t) => t.name)).toEqual([]);
      expect(new Set(CALLS().map(([name]) => name))).toEqual(new Set(readOnly.map((t) => t.name)));
    });

    it('lists output schemas that are open, shallow and never require the optional markers', () => {
      type Schema = { properties?: Record<string, Schema>; items?: Schema; required?: string[]; [k: string]: unknown };
      const problems: string[] = [];
      for (const t of listed.filter((x) => x.outputSchema)) {
        const schema = t.outputSchema as Schema;
        if (JSON.stringify(schema).includes('additionalProperties')) problems.push(`${t.name}: closed`);
        for (const marker of ['truncated', 'warnings', 'hints']) if (schema.required?.includes(marker)) problems.push(`${t.name}: requires ${marker}`);
        // A root key states its type, and a list of objects one level more: each item key's type, nothing required.
        for (const [key, s] of Object.entries(schema.properties ?? {})) {
          if (s.properties) problems.push(`${t.name}: ${key} has properties`);
          if (!s.items) continue;
          if (s.items.required) problems.push(`${t.name}: ${key}[] has required`);
          for (const [k, v] of Object.entries(s.items.properties ?? {})) if (Object.keys(v).some((x) => x !== 'type')) problems.push(`${t.name}: ${key}[].${k} too deep`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('returns structuredContent that the listed outputSchema accepts (Ajv and the official client) and that equals the text', async () => {
      const ajv = new Ajv({ allErrors: true });
      const schemas = new Map(listed.map((t) => [t.name, t.outputSchema]));
      const problems: string[] = [];
      for (const [name, args] of CALLS()) {
        // The v2 client (pinned to 2026-07-28) throws when structuredContent does not match the listed outputSchema.
        const res = (await admin.client.callTool({ name, arguments: args })) as SdkResult;
        const label = `${name} ${JSON.stringify(args)}`;
        if (res.isError) {
          problems.push(`${label}: ${res.content[0].text}`);
          continue;
        }
        expect([label, res.content.length, res.content[0].type]).toEqual([label, 1, 'text']);
        expect([label, res.structuredContent]).toEqual([label, JSON.parse(res.content[0].text)]);
        const validate = ajv.compile(schemas.get(name)!);
        if (!validate(res.structuredContent)) problems.push(`${label}: ${ajv.errorsText(validate.errors)}`);
      }
      expect(problems).toEqual([]);
    });

    it('is accepted by the official v1 client (2025-11-25) too, which validates structuredContent the same way', async () => {
      const v1 = await mcpClientV1(app.url, admin.key);
      try {
        const tools = (await v1.listTools()).tools as Listed[];
        expect(tools.filter((t) => t.annotations?.readOnlyHint === true && !t.outputSchema).map((t) => t.name)).toEqual([]);
        const failures: string[] = [];
        for (const [name, args] of CALLS()) {
          try {
            const res = (await v1.callTool({ name, arguments: args })) as SdkResult;
            if (res.isError || !res.structuredContent) failures.push(`${name}: ${res.content[0]?.text}`);
          } catch (err) {
            failures.push(`${name}: ${(err as Error).message}`);
          }
        }
        expect(failures).toEqual([]);
      } finally {
        await v1.close();
      }
    });

    it('exercises the nullable and nested fields it claims to type (seeded data is not trivially empty)', async () => {
      const task = ((await admin.client.callTool({ name: 'svc_get_task', arguments: { taskUuid: seeded.taskUuid } })) as SdkResult).structuredContent!;
      expect(task).toMatchObject({ storyPoints: 2.5, proposalUuid: null, assignee: expect.any(Object), references: [expect.any(Object)], activeSessions: [expect.any(Object)] });
      const elaboration = ((await admin.client.callTool({ name: 'svc_get_elaboration', arguments: { ideaUuid: seeded.ideaUuid } })) as SdkResult).structuredContent!;
      expect(elaboration).toMatchObject({ rounds: [expect.objectContaining({ answeredAt: expect.any(String) })] });
    });

    it('carries no structuredContent on an error result', async () => {
      const res = (await admin.client.callTool({ name: 'svc_get_task', arguments: { taskUuid: randomUUID() } })) as SdkResult;
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toBeUndefined();
      expect(JSON.parse(res.content[0].text).error.code).toBe('NOT_FOUND');
    });

    it('leaves write tools without an output schema and structured content', async () => {
      const write = listed.find((t) => t.name === 'svc_session_heartbeat')!;
      expect(write.outputSchema).toBeUndefined();
      const res = (await admin.client.callTool({ name: 'svc_session_heartbeat', arguments: { sessionUuid: seeded.sessionUuid } })) as SdkResult;
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toBeUndefined();
    });
  });
});

describe('the catalogue doc', () => {
  /**
   * docs/tools.md is the catalogue the code lists (test/utils/tool-catalogue-doc.ts). A tool added, renamed, re-described
   * or given another schema without `npm run docs:tools` fails here (and so in CI).
   */
  const FILE = new URL('../../docs/tools.md', import.meta.url);

  describe('docs/tools.md', () => {

    it('is the catalogue the registry lists', () => {
      const rendered = renderToolCatalogue(app.get(ToolRegistry));
      if (process.env.UPDATE_DOCS === '1') writeFileSync(FILE, rendered);
      expect(readFileSync(FILE, 'utf8')).toBe(rendered);
    });
  });
});
