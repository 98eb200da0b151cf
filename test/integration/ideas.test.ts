import { randomUUID } from 'node:crypto';
import { expectAppError } from '../utils/expect-error.js';
import { createIdeaWorld, type IdeaWorld } from '../utils/domain-world.js';
import { textsOf } from '../utils/world.js';
import { question } from '../factories/domain.factory.js';

let w: IdeaWorld;
let projectUuid: string;
let otherProjectUuid: string;

beforeAll(async () => {
  w = await createIdeaWorld();
  projectUuid = (await w.f.project(w.alice, { name: 'Main' })).uuid;
  otherProjectUuid = (await w.f.project(w.alice, { name: 'Other' })).uuid;
});
afterAll(() => w.close());
beforeEach(() => {
  w.h.takeEvents();
  w.mutations.length = 0;
});

const ev = (entityType: string, entityUuid: string, project: string, action: string): Record<string, string> => ({
  companyUuid: w.alice.companyUuid,
  projectUuid: project,
  entityType,
  entityUuid,
  action,
});

const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => w.refused(call, code, message);

describe('create (svc_pm_create_idea)', () => {
  it('creates an open idea with references, one event, a created activity and a mention source', async () => {
    const idea = await w.ideas.create(w.pm, {
      projectUuid,
      title: '  Dark mode  ',
      content: 'Ask @[Bob](user:x)',
      references: [
        { type: 'docs', url: 'https://example.com/a', title: 'First' },
        { type: 'repo', url: 'http://example.com/b', title: 'Second', notes: 'n' },
      ],
    });
    expect(idea).toEqual({
      uuid: expect.any(String),
      projectUuid,
      title: 'Dark mode',
      status: 'open',
      derivedStatus: 'todo',
      isContainer: false,
      parentUuid: null,
      assignee: null,
      elaborationStatus: null,
      childCount: 0,
      createdBy: { type: 'agent', uuid: w.pm.uuid, name: 'PM' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      content: 'Ask @[Bob](user:x)',
      elaborationDepth: null,
      parent: null,
      children: [],
      proposals: [],
      reports: [],
      references: [
        expect.objectContaining({ targetType: 'idea', targetUuid: expect.any(String), type: 'docs', url: 'https://example.com/a', title: 'First', notes: null, createdBy: { type: 'agent', uuid: w.pm.uuid, name: 'PM' } }),
        expect.objectContaining({ type: 'repo', title: 'Second', notes: 'n' }),
      ],
    });
    expect(idea.references[0].targetUuid).toBe(idea.uuid);
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'created')]);
    expect(await w.activities(idea.uuid)).toEqual([{ action: 'created', project_uuid: projectUuid, value: { title: 'Dark mode' }, actor_uuid: w.pm.uuid }]);
    expect(textsOf(w.mutations[0])).toEqual([
      { sourceType: 'idea', sourceUuid: idea.uuid, entityType: 'idea', entityUuid: idea.uuid, entityTitle: 'Dark mode', projectUuid, before: null, after: 'Ask @[Bob](user:x)' },
    ]);
  });

  it('creates a child idea and a theme; the parent gets an update event', async () => {
    const theme = await w.ideas.create(w.alice, { projectUuid, title: 'Theme', isContainer: true });
    w.h.takeEvents();
    const child = await w.ideas.create(w.alice, { projectUuid, title: 'Child', parentUuid: theme.uuid });
    expect(child).toMatchObject({ parentUuid: theme.uuid, parent: { uuid: theme.uuid, title: 'Theme' } });
    expect(w.h.takeEvents()).toEqual([ev('idea', child.uuid, projectUuid, 'created'), ev('idea', theme.uuid, projectUuid, 'updated')]);
    const again = await w.ideas.get(w.alice, { ideaUuid: theme.uuid });
    expect(again).toMatchObject({ isContainer: true, childCount: 1, children: [{ uuid: child.uuid, title: 'Child', status: 'open', derivedStatus: 'todo' }] });
    expect(w.mutations.every((m) => textsOf(m).length === 0)).toBe(true);
  });

  it('refuses bad input, a foreign project and a parent elsewhere, writing nothing', async () => {
    const elsewhere = await w.f.idea(w.alice, otherProjectUuid);
    const foreignProject = await w.f.project(w.mallory);
    const foreignIdea = await w.f.idea(w.mallory, foreignProject.uuid);
    w.h.takeEvents();
    await refused(() => w.ideas.create(w.pm, { projectUuid, title: '   ' }), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(() => w.ideas.create(w.pm, { projectUuid, title: 'x', content: 'y'.repeat(100_001) }), 'VALIDATION_ERROR');
    await refused(() => w.ideas.create(w.pm, { projectUuid, title: 'x', references: [{ type: 'docs', url: 'ftp://x', title: 't' }] }), 'VALIDATION_ERROR', 'URL must start with http:// or https://');
    // More than 10 references and unknown status filters are the DTO's: src/modules/ideas/dto/idea.dto.spec.ts.
    await refused(() => w.ideas.create(w.pm, { projectUuid: foreignProject.uuid, title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => w.ideas.create(w.pm, { projectUuid: randomUUID(), title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => w.ideas.create(w.pm, { projectUuid, title: 'x', parentUuid: foreignIdea.uuid }), 'NOT_FOUND', 'Parent idea not found');
    await refused(() => w.ideas.create(w.pm, { projectUuid, title: 'x', parentUuid: elsewhere.uuid }), 'VALIDATION_ERROR', 'Parent idea must be in the same project');
  });
});

describe('list, listAvailable, get', () => {
  it('lists a project newest first with status filter and paging; available = open only', async () => {
    const p = await w.f.project(w.alice);
    const a = await w.f.idea(w.alice, p.uuid, { title: 'A' });
    const b = await w.f.idea(w.alice, p.uuid, { title: 'B', state: 'elaborating', assignee: w.pm });
    const c = await w.f.idea(w.alice, p.uuid, { title: 'C' });
    const all = await w.ideas.list(w.alice, { projectUuid: p.uuid });
    expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
    expect(all.ideas.map((i) => i.uuid)).toEqual([c.uuid, b.uuid, a.uuid]);
    expect(all.ideas[1]).toMatchObject({
      status: 'elaborating',
      derivedStatus: 'in_progress',
      assignee: { type: 'agent', uuid: w.pm.uuid, name: 'PM', assignedAt: expect.any(String), assignedBy: { type: 'agent', uuid: w.pm.uuid, name: 'PM' } },
    });
    expect(Object.keys(all.ideas[0]).sort()).toEqual(
      ['uuid', 'projectUuid', 'title', 'status', 'derivedStatus', 'isContainer', 'parentUuid', 'assignee', 'elaborationStatus', 'childCount', 'createdBy', 'createdAt', 'updatedAt'].sort(),
    );
    expect((await w.ideas.list(w.alice, { projectUuid: p.uuid, status: 'elaborating' })).ideas.map((i) => i.uuid)).toEqual([b.uuid]);
    const page2 = await w.ideas.list(w.alice, { projectUuid: p.uuid, page: 2, pageSize: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page2.ideas.map((i) => i.uuid)).toEqual([a.uuid]);
    const available = await w.ideas.listAvailable(w.pm, { projectUuid: p.uuid });
    expect(available.ideas.map((i) => i.uuid)).toEqual([c.uuid, a.uuid]);
    expect(available.total).toBe(2);
    await expectAppError(w.ideas.list(w.mallory, { projectUuid: p.uuid }), 'NOT_FOUND', 'Project not found');
    await expectAppError(w.ideas.listAvailable(w.mallory, { projectUuid: p.uuid }), 'NOT_FOUND', 'Project not found');
  });

  it('returns proposals listing the idea and the report documents of those proposals, newest first', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { state: 'elaborated' });
    const other = await w.f.idea(w.alice, projectUuid);
    const p1 = await w.f.proposal(w.alice, projectUuid, { inputUuids: [idea.uuid, other.uuid], status: 'approved', title: 'P1' });
    const p2 = await w.f.proposal(w.alice, projectUuid, { inputUuids: [idea.uuid], status: 'draft', title: 'P2' });
    await w.f.proposal(w.alice, projectUuid, { inputUuids: [other.uuid], status: 'approved' });
    const r1 = await w.f.document(w.alice, projectUuid, { proposalUuid: p1.uuid, type: 'report', title: 'R1' });
    await new Promise((r) => setTimeout(r, 5));
    const r2 = await w.f.document(w.alice, projectUuid, { proposalUuid: p1.uuid, type: 'report', title: 'R2' });
    await w.f.document(w.alice, projectUuid, { proposalUuid: p1.uuid, type: 'prd' });
    const rec = await w.ideas.get(w.bob, { ideaUuid: idea.uuid });
    expect(rec.proposals).toEqual([
      { uuid: p1.uuid, title: 'P1', status: 'approved' },
      { uuid: p2.uuid, title: 'P2', status: 'draft' },
    ]);
    expect(rec.reports).toEqual([
      { uuid: r2.uuid, title: 'R2', proposalUuid: p1.uuid, createdAt: r2.createdAt.toISOString() },
      { uuid: r1.uuid, title: 'R1', proposalUuid: p1.uuid, createdAt: r1.createdAt.toISOString() },
    ]);
    expect(rec.elaborationDepth).toBe('standard');
    await expectAppError(w.ideas.get(w.mallory, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('edit (svc_edit_idea)', () => {
  it('edits title, content and theme flag: one event, one edited activity, a mention source with before/after', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { title: 'Old', content: 'old text' });
    w.h.takeEvents();
    w.mutations.length = 0;
    const r = await w.ideas.edit(w.pm, { ideaUuid: idea.uuid, title: ' New ', content: 'new text', isContainer: true });
    expect(r).toMatchObject({ title: 'New', content: 'new text', isContainer: true });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await w.activities(idea.uuid)).at(-1)).toEqual({ action: 'edited', project_uuid: projectUuid, value: { fields: ['title', 'content', 'isContainer'] }, actor_uuid: w.pm.uuid });
    expect(textsOf(w.mutations[0])).toEqual([
      { sourceType: 'idea', sourceUuid: idea.uuid, entityType: 'idea', entityUuid: idea.uuid, entityTitle: 'New', projectUuid, before: 'old text', after: 'new text' },
    ]);
  });

  it('reparents (events for idea, old and new parent; one merged activity) and detaches with null', async () => {
    const p1 = await w.f.idea(w.alice, projectUuid, { isContainer: true });
    const p2 = await w.f.idea(w.alice, projectUuid, { isContainer: true });
    const idea = await w.f.idea(w.alice, projectUuid, { parentUuid: p1.uuid });
    w.h.takeEvents();
    const r = await w.ideas.edit(w.alice, { ideaUuid: idea.uuid, parentUuid: p2.uuid, title: 'Moved under p2' });
    expect(r.parent).toEqual({ uuid: p2.uuid, title: p2.title });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated'), ev('idea', p1.uuid, projectUuid, 'updated'), ev('idea', p2.uuid, projectUuid, 'updated')]);
    const acts = await w.activities(idea.uuid);
    expect(acts).toHaveLength(2);
    expect(acts[1]).toMatchObject({
      action: 'reparented',
      value: { fromParentUuid: p1.uuid, toParentUuid: p2.uuid, changes: [{ action: 'edited', fields: ['title'] }, { action: 'reparented', fromParentUuid: p1.uuid, toParentUuid: p2.uuid }] },
    });
    const detached = await w.ideas.edit(w.alice, { ideaUuid: idea.uuid, parentUuid: null });
    expect(detached).toMatchObject({ parentUuid: null, parent: null });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated'), ev('idea', p2.uuid, projectUuid, 'updated')]);
    expect((await w.activities(idea.uuid)).at(-1)).toMatchObject({ action: 'reparented', value: { fromParentUuid: p2.uuid, toParentUuid: null } });
  });

  it('an edit that changes nothing writes no activity and publishes nothing', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { title: 'Same', content: 'c' });
    w.h.takeEvents();
    const before = await w.ideaRow(idea.uuid);
    const r = await w.ideas.edit(w.alice, { ideaUuid: idea.uuid, title: 'Same', content: 'c', isContainer: false, parentUuid: null });
    expect(r.title).toBe('Same');
    expect(w.h.takeEvents()).toEqual([]);
    expect(await w.ideaRow(idea.uuid)).toEqual(before);
    expect((await w.activities(idea.uuid)).map((a) => a.action)).toEqual(['created']);
  });

  it('refuses with the messages of docs/tool-conventions.md and leaves everything unchanged', async () => {
    const root = await w.f.idea(w.alice, projectUuid, { isContainer: true });
    const mid = await w.f.idea(w.alice, projectUuid, { parentUuid: root.uuid, isContainer: true });
    const leaf = await w.f.idea(w.alice, projectUuid, { parentUuid: mid.uuid });
    const elsewhere = await w.f.idea(w.alice, otherProjectUuid);
    const foreign = await w.f.idea(w.mallory, (await w.f.project(w.mallory)).uuid);
    w.h.takeEvents();
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, parentUuid: root.uuid }), 'VALIDATION_ERROR', 'An idea cannot be its own parent');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, parentUuid: elsewhere.uuid }), 'VALIDATION_ERROR', 'Parent idea must be in the same project');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, parentUuid: leaf.uuid }), 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, parentUuid: mid.uuid }), 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, parentUuid: foreign.uuid }), 'NOT_FOUND', 'Parent idea not found');
    await refused(() => w.ideas.edit(w.alice, { ideaUuid: root.uuid, title: '' }), 'VALIDATION_ERROR');
    await refused(() => w.ideas.edit(w.mallory, { ideaUuid: root.uuid, title: 'Hijack' }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('claim (svc_claim_idea)', () => {
  it('open -> elaborating with the caller as assignee, an assigned activity and one event', async () => {
    const idea = await w.f.idea(w.alice, projectUuid);
    w.h.takeEvents();
    const r = await w.ideas.claim(w.pm, { ideaUuid: idea.uuid });
    expect(r).toMatchObject({ status: 'elaborating', derivedStatus: 'in_progress', assignee: { type: 'agent', uuid: w.pm.uuid, name: 'PM', assignedBy: { type: 'agent', uuid: w.pm.uuid } } });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await w.activities(idea.uuid)).at(-1)).toEqual({ action: 'assigned', project_uuid: projectUuid, value: { assignee: { type: 'agent', uuid: w.pm.uuid } }, actor_uuid: w.pm.uuid });
  });

  it('claiming again by the assignee, or by its owner user, is an unchanged success without event or activity', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { state: 'elaborating', assignee: w.pm });
    const elaborated = await w.f.idea(w.alice, projectUuid, { state: 'elaborated', assignee: w.pm });
    const ownedByUser = await w.f.idea(w.alice, projectUuid, { state: 'elaborating', assignee: w.alice });
    w.h.takeEvents();
    for (const [actor, uuid] of [
      [w.pm, idea.uuid],
      [w.alice, idea.uuid],
      [w.pm, elaborated.uuid],
      [w.pm, ownedByUser.uuid],
    ] as const) {
      const before = await w.ideaRow(uuid);
      const acts = (await w.activities(uuid)).length;
      const r = await w.ideas.claim(actor, { ideaUuid: uuid });
      expect(r.assignee?.uuid).toBe(before!.assignee_uuid);
      expect(await w.ideaRow(uuid)).toEqual(before);
      expect(await w.activities(uuid)).toHaveLength(acts);
    }
    expect(w.h.takeEvents()).toEqual([]);
  });

  it('anyone else gets INVALID_STATE and nothing changes', async () => {
    const elaborating = await w.f.idea(w.alice, projectUuid, { state: 'elaborating', assignee: w.pm });
    const elaborated = await w.f.idea(w.alice, projectUuid, { state: 'elaborated', assignee: w.pm });
    await refused(() => w.ideas.claim(w.pm2, { ideaUuid: elaborating.uuid }), 'INVALID_STATE', 'Idea is elaborating; claim requires open');
    await refused(() => w.ideas.claim(w.bob, { ideaUuid: elaborating.uuid }), 'INVALID_STATE', 'Idea is elaborating; claim requires open');
    await refused(() => w.ideas.claim(w.pm2, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; claim requires open');
    await refused(() => w.ideas.claim(w.malloryAgent, { ideaUuid: elaborating.uuid }), 'NOT_FOUND', 'Idea not found');
  });
  it('two concurrent claims of one open idea: exactly one wins, the other sees the new state', async () => {
    const idea = await w.f.idea(w.alice, projectUuid);
    w.h.takeEvents();
    const results = await Promise.allSettled([w.ideas.claim(w.pm, { ideaUuid: idea.uuid }), w.ideas.claim(w.pm2, { ideaUuid: idea.uuid })]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toMatchObject({ code: 'INVALID_STATE', message: 'Idea is elaborating; claim requires open' });
    expect(w.h.takeEvents()).toHaveLength(1);
    expect((await w.activities(idea.uuid)).filter((a) => a.action === 'assigned')).toHaveLength(1);
  });
});

describe('release (svc_release_idea)', () => {
  it('elaborating -> open: clears assignee, depth and elaboration status, keeps rounds', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { state: 'pending_answers', assignee: w.pm });
    w.h.takeEvents();
    const r = await w.ideas.release(w.pm, { ideaUuid: idea.uuid });
    expect(r).toMatchObject({ status: 'open', derivedStatus: 'todo', assignee: null, elaborationStatus: null, elaborationDepth: null });
    const row = await w.ideaRow(idea.uuid);
    expect(row).toMatchObject({ assigned_at: null, assigned_by_type: null, assigned_by_uuid: null });
    const state = await w.elaboration.getState(w.alice, { ideaUuid: idea.uuid });
    expect(state.rounds).toHaveLength(1);
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await w.activities(idea.uuid)).at(-1)).toMatchObject({ action: 'released', value: { assignee: { type: 'agent', uuid: w.pm.uuid } } });
  });

  it('the owner user of the assigned agent may release (identity rule)', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { state: 'elaborating', assignee: w.pm });
    expect((await w.ideas.release(w.alice, { ideaUuid: idea.uuid })).status).toBe('open');
  });

  it('refuses non-assignees (FORBIDDEN, also for an open idea) and an elaborated idea (INVALID_STATE)', async () => {
    const elaborating = await w.f.idea(w.alice, projectUuid, { state: 'elaborating', assignee: w.pm });
    const elaborated = await w.f.idea(w.alice, projectUuid, { state: 'elaborated', assignee: w.pm });
    const open = await w.f.idea(w.alice, projectUuid);
    await refused(() => w.ideas.release(w.pm2, { ideaUuid: elaborating.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => w.ideas.release(w.bob, { ideaUuid: elaborating.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => w.ideas.release(w.pm, { ideaUuid: open.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => w.ideas.release(w.pm, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; release requires elaborating');
    await refused(() => w.ideas.release(w.mallory, { ideaUuid: elaborating.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('assign (REST only)', () => {
  it('open -> elaborating for a user; elaborating -> reassigned to an agent; same target again changes nothing', async () => {
    const idea = await w.f.idea(w.alice, projectUuid);
    w.h.takeEvents();
    const r = await w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: w.bob.uuid });
    expect(r).toMatchObject({ status: 'elaborating', assignee: { type: 'user', uuid: w.bob.uuid, name: 'Bob', assignedBy: { type: 'user', uuid: w.alice.uuid, name: 'Alice' } } });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await w.activities(idea.uuid)).at(-1)).toMatchObject({ action: 'assigned', value: { assignee: { type: 'user', uuid: w.bob.uuid } }, actor_uuid: w.alice.uuid });
    const again = await w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: w.pm2.uuid });
    expect(again).toMatchObject({ status: 'elaborating', assignee: { type: 'agent', uuid: w.pm2.uuid } });
    expect(w.h.takeEvents()).toHaveLength(1);
    const before = await w.ideaRow(idea.uuid);
    await w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: w.pm2.uuid });
    expect(await w.ideaRow(idea.uuid)).toEqual(before);
    expect(w.h.takeEvents()).toEqual([]);
  });

  it('accepts an agent whose custom bits add idea:write', async () => {
    const { agent } = await w.ids.agent(w.alice.companyUuid, w.alice.uuid, { preset: 'developer_agent', permissions: ['idea:write'], name: 'DevPlus' });
    const idea = await w.f.idea(w.alice, projectUuid);
    expect((await w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: agent.uuid })).assignee?.uuid).toBe(agent.uuid);
  });

  it('refuses targets without idea:write, archived or foreign targets, and an elaborated idea', async () => {
    const idea = await w.f.idea(w.alice, projectUuid);
    const elaborated = await w.f.idea(w.alice, projectUuid, { state: 'elaborated' });
    const { agent: archived } = await w.ids.agent(w.alice.companyUuid, w.alice.uuid, { preset: 'pm_agent' });
    await w.db.dataSource.query(`UPDATE agent SET archived_at = now() WHERE uuid = $1`, [archived.uuid]);
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: w.dev.uuid }), 'VALIDATION_ERROR', 'Agent "Dev" does not have idea:write permission');
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: archived.uuid }), 'NOT_FOUND', 'Agent not found');
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: w.malloryAgent.uuid }), 'NOT_FOUND', 'Agent not found');
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: w.mallory.uuid }), 'NOT_FOUND', 'User not found');
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'robot' as never, assigneeUuid: w.bob.uuid }), 'VALIDATION_ERROR');
    await refused(() => w.ideas.assign(w.alice, { ideaUuid: elaborated.uuid, assigneeType: 'user', assigneeUuid: w.bob.uuid }), 'INVALID_STATE', 'Idea is elaborated; assign requires open or elaborating');
    await refused(() => w.ideas.assign(w.mallory, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: w.mallory.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('delete (svc_admin_delete_idea)', () => {
  it('detaches children, removes rounds, comments and references, keeps activities and proposals', async () => {
    const parent = await w.f.idea(w.alice, projectUuid, { isContainer: true });
    const idea = await w.ideas.create(w.alice, {
      projectUuid,
      title: 'Doomed',
      parentUuid: parent.uuid,
      references: [{ type: 'docs', url: 'https://d.example', title: 'D' }],
    });
    await w.ideas.claim(w.alice, { ideaUuid: idea.uuid });
    await w.elaboration.start(w.alice, { ideaUuid: idea.uuid, depth: 'standard', questions: [question('q1')] });
    const c1 = await w.f.idea(w.alice, projectUuid, { parentUuid: idea.uuid });
    const c2 = await w.f.idea(w.alice, projectUuid, { parentUuid: idea.uuid });
    const proposal = await w.f.proposal(w.alice, projectUuid, { inputUuids: [idea.uuid] });
    await w.db.dataSource.query(
      `INSERT INTO comment (uuid, company_uuid, target_type, target_uuid, content, author_type, author_uuid) VALUES ($1, $2, 'idea', $3, 'hi', 'user', $4)`,
      [randomUUID(), w.alice.companyUuid, idea.uuid, w.alice.uuid],
    );
    w.h.takeEvents();
    expect(await w.ideas.delete(w.admin, { ideaUuid: idea.uuid })).toEqual({ uuid: idea.uuid, deleted: true });
    const events = w.h.takeEvents();
    expect(events).toHaveLength(4);
    expect(events).toEqual(
      expect.arrayContaining([
        ev('idea', c1.uuid, projectUuid, 'updated'),
        ev('idea', c2.uuid, projectUuid, 'updated'),
        ev('idea', parent.uuid, projectUuid, 'updated'),
        ev('idea', idea.uuid, projectUuid, 'deleted'),
      ]),
    );
    expect(events.at(-1)).toEqual(ev('idea', idea.uuid, projectUuid, 'deleted'));
    expect((await w.ideas.get(w.alice, { ideaUuid: c1.uuid })).parentUuid).toBeNull();
    expect((await w.ideas.get(w.alice, { ideaUuid: parent.uuid })).childCount).toBe(0);
    const count = async (sql: string): Promise<number> => (await w.db.dataSource.query(sql, [idea.uuid]))[0].n;
    expect(await count(`SELECT count(*)::int AS n FROM elaboration_round WHERE idea_uuid = $1`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM comment WHERE target_uuid = $1`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM reference WHERE target_uuid = $1`)).toBe(0);
    expect((await w.activities(idea.uuid)).map((a) => a.action)).toEqual(['created', 'assigned', 'elaboration_started', 'deleted']);
    const [kept] = await w.db.dataSource.query(`SELECT input_uuids FROM proposal WHERE uuid = $1`, [proposal.uuid]);
    expect(kept.input_uuids).toEqual([idea.uuid]);
    await expectAppError(w.ideas.get(w.alice, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
  });

  it('refuses another company and a missing idea', async () => {
    const idea = await w.f.idea(w.alice, projectUuid);
    await refused(() => w.ideas.delete(w.mallory, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.delete(w.alice, { ideaUuid: randomUUID() }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('tenant isolation', () => {
  it('every read and write with another company gives NOT_FOUND and changes nothing', async () => {
    const idea = await w.f.idea(w.alice, projectUuid, { state: 'pending_answers', assignee: w.pm });
    const m = w.malloryAgent;
    const id = { ideaUuid: idea.uuid };
    await refused(() => w.ideas.get(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.list(m, { projectUuid }), 'NOT_FOUND', 'Project not found');
    await refused(() => w.ideas.listAvailable(m, { projectUuid }), 'NOT_FOUND', 'Project not found');
    await refused(() => w.ideas.create(m, { projectUuid, title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => w.ideas.edit(m, { ...id, title: 'x' }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.claim(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.release(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.assign(m, { ...id, assigneeType: 'agent', assigneeUuid: m.uuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.move(m, { ...id, targetProjectUuid: otherProjectUuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.ideas.delete(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.elaboration.getState(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.elaboration.start(m, { ...id, depth: 'standard', questions: [question('z')] }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.elaboration.answer(m, { ...id, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.elaboration.validate(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => w.elaboration.skip(m, { ...id, reason: 'r' }), 'NOT_FOUND', 'Idea not found');
    const round = (await w.elaboration.getState(w.alice, id)).rounds[0];
    const mine = await w.f.idea(m, (await w.f.project(m)).uuid, { state: 'elaborating' });
    w.h.takeEvents();
    await refused(() => w.elaboration.answer(m, { ideaUuid: mine.uuid, roundUuid: round.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'NOT_FOUND', 'Round not found');
    await refused(() => w.ideas.move(m, { ideaUuid: mine.uuid, targetProjectUuid: projectUuid }), 'NOT_FOUND', 'Target project not found');
    expect(await w.tracker.tracker(m, { projectScope: null })).toEqual({ [mine.projectUuid]: expect.anything() });
  });
});
