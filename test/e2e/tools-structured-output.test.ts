import { randomUUID } from 'node:crypto';
import { mcpClientV1 } from '../utils/mcp-client.js';
import { Ajv } from 'ajv';
import { World, type WorldAgent } from '../utils/world.js';

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
  let app: World;
  let admin: WorldAgent;
  let listed: Listed[];
  const seeded: Record<string, string> = {};

  const ok = async (name: string, args: Record<string, unknown> = {}) => app.ok(admin, name, args);

  beforeAll(async () => {
    app = await World.start();
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
  afterAll(async () => {
    await app?.close();
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
