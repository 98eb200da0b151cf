import { randomUUID } from 'node:crypto';
import { ElaborationService, IdeaService, IdeaTrackerService } from '../../src/modules/ideas/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectAppError, expectIdeaRefused } from '../utils/expect-error.js';
import { textsOf, userActor, World } from '../utils/world.js';
import { question } from '../factories/domain.factory.js';

let world: World;
let ideas: IdeaService;
let elaboration: ElaborationService;
/**
 * Alice and Bob of one company; pm (pm_agent) and dev (developer_agent) are Alice's agents, pm2 (pm_agent) and admin
 * (admin_agent) Bob's; Mallory and her admin agent are of another company.
 */
let alice: Actor;
let bob: Actor;
let pm: Actor;
let pm2: Actor;
let dev: Actor;
let admin: Actor;
let mallory: Actor;
let malloryAgent: Actor;
let projectUuid: string;
let otherProjectUuid: string;
/** What each committed mutation recorded. */
const mutations: MutationCommitted[] = [];

beforeAll(async () => {
  world = await World.database();
  ideas = world.get(IdeaService);
  elaboration = world.get(ElaborationService);
  world.h.onCommitted((m) => {
    mutations.push(m);
  });
  const a = (await world.company()).uuid;
  const aliceU = await world.user(a, { name: 'Alice' });
  const bobU = await world.user(a, { name: 'Bob' });
  [alice, bob] = [userActor(aliceU), userActor(bobU)];
  pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  pm2 = (await world.agent(a, bobU.uuid, { preset: 'pm_agent', name: 'PM2' })).actor;
  dev = (await world.agent(a, aliceU.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
  admin = (await world.agent(a, bobU.uuid, { preset: 'admin_agent', name: 'Admin' })).actor;
  const b = (await world.company()).uuid;
  const malloryU = await world.user(b, { name: 'Mallory' });
  mallory = userActor(malloryU);
  malloryAgent = (await world.agent(b, malloryU.uuid, { preset: 'admin_agent', name: 'Evil' })).actor;
  projectUuid = (await world.domain.project(alice, { name: 'Main' })).uuid;
  otherProjectUuid = (await world.domain.project(alice, { name: 'Other' })).uuid;
});
afterAll(() => world.close());
beforeEach(() => {
  world.h.takeEvents();
  mutations.length = 0;
});

const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
const activities = (targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>> =>
  world.ds.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]);
/** The stored idea row, for "unchanged on refusal" comparisons. */
const ideaRow = async (uuid: string): Promise<Record<string, unknown> | undefined> => (await world.ds.query(`SELECT * FROM idea WHERE uuid = $1`, [uuid]))[0];

const ev = (entityType: string, entityUuid: string, project: string, action: string): Record<string, string> => ({
  companyUuid: alice.companyUuid,
  projectUuid: project,
  entityType,
  entityUuid,
  action,
});

describe('create (svc_pm_create_idea)', () => {
  it('creates an open idea with references, one event, a created activity and a mention source', async () => {
    const idea = await ideas.create(pm, {
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
      createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      content: 'Ask @[Bob](user:x)',
      elaborationDepth: null,
      parent: null,
      children: [],
      proposals: [],
      reports: [],
      references: [
        expect.objectContaining({ targetType: 'idea', targetUuid: expect.any(String), type: 'docs', url: 'https://example.com/a', title: 'First', notes: null, createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' } }),
        expect.objectContaining({ type: 'repo', title: 'Second', notes: 'n' }),
      ],
    });
    expect(idea.references[0].targetUuid).toBe(idea.uuid);
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'created')]);
    expect(await activities(idea.uuid)).toEqual([{ action: 'created', project_uuid: projectUuid, value: { title: 'Dark mode' }, actor_uuid: pm.uuid }]);
    expect(textsOf(mutations[0])).toEqual([
      { sourceType: 'idea', sourceUuid: idea.uuid, entityType: 'idea', entityUuid: idea.uuid, entityTitle: 'Dark mode', projectUuid, before: null, after: 'Ask @[Bob](user:x)' },
    ]);
  });

  it('creates a child idea and a theme; the parent gets an update event', async () => {
    const theme = await ideas.create(alice, { projectUuid, title: 'Theme', isContainer: true });
    world.h.takeEvents();
    const child = await ideas.create(alice, { projectUuid, title: 'Child', parentUuid: theme.uuid });
    expect(child).toMatchObject({ parentUuid: theme.uuid, parent: { uuid: theme.uuid, title: 'Theme' } });
    expect(world.h.takeEvents()).toEqual([ev('idea', child.uuid, projectUuid, 'created'), ev('idea', theme.uuid, projectUuid, 'updated')]);
    const again = await ideas.get(alice, { ideaUuid: theme.uuid });
    expect(again).toMatchObject({ isContainer: true, childCount: 1, children: [{ uuid: child.uuid, title: 'Child', status: 'open', derivedStatus: 'todo' }] });
    expect(mutations.every((m) => textsOf(m).length === 0)).toBe(true);
  });

  it('refuses bad input, a foreign project and a parent elsewhere, writing nothing', async () => {
    const elsewhere = await world.domain.idea(alice, otherProjectUuid);
    const foreignProject = await world.domain.project(mallory);
    const foreignIdea = await world.domain.idea(mallory, foreignProject.uuid);
    world.h.takeEvents();
    await refused(() => ideas.create(pm, { projectUuid, title: '   ' }), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(() => ideas.create(pm, { projectUuid, title: 'x', content: 'y'.repeat(100_001) }), 'VALIDATION_ERROR');
    await refused(() => ideas.create(pm, { projectUuid, title: 'x', references: [{ type: 'docs', url: 'ftp://x', title: 't' }] }), 'VALIDATION_ERROR', 'URL must start with http:// or https://');
    // More than 10 references and unknown status filters are the DTO's: src/modules/ideas/dto/idea.dto.spec.ts.
    await refused(() => ideas.create(pm, { projectUuid: foreignProject.uuid, title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => ideas.create(pm, { projectUuid: randomUUID(), title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => ideas.create(pm, { projectUuid, title: 'x', parentUuid: foreignIdea.uuid }), 'NOT_FOUND', 'Parent idea not found');
    await refused(() => ideas.create(pm, { projectUuid, title: 'x', parentUuid: elsewhere.uuid }), 'VALIDATION_ERROR', 'Parent idea must be in the same project');
  });
});

describe('list, listAvailable, get', () => {
  it('lists a project newest first with status filter and paging; available = open only', async () => {
    const p = await world.domain.project(alice);
    const a = await world.domain.idea(alice, p.uuid, { title: 'A' });
    const b = await world.domain.idea(alice, p.uuid, { title: 'B', state: 'elaborating', assignee: pm });
    const c = await world.domain.idea(alice, p.uuid, { title: 'C' });
    const all = await ideas.list(alice, { projectUuid: p.uuid });
    expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
    expect(all.ideas.map((i) => i.uuid)).toEqual([c.uuid, b.uuid, a.uuid]);
    expect(all.ideas[1]).toMatchObject({
      status: 'elaborating',
      derivedStatus: 'in_progress',
      assignee: { type: 'agent', uuid: pm.uuid, name: 'PM', assignedAt: expect.any(String), assignedBy: { type: 'agent', uuid: pm.uuid, name: 'PM' } },
    });
    expect(Object.keys(all.ideas[0]).sort()).toEqual(
      ['uuid', 'projectUuid', 'title', 'status', 'derivedStatus', 'isContainer', 'parentUuid', 'assignee', 'elaborationStatus', 'childCount', 'createdBy', 'createdAt', 'updatedAt'].sort(),
    );
    expect((await ideas.list(alice, { projectUuid: p.uuid, status: 'elaborating' })).ideas.map((i) => i.uuid)).toEqual([b.uuid]);
    const page2 = await ideas.list(alice, { projectUuid: p.uuid, page: 2, pageSize: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page2.ideas.map((i) => i.uuid)).toEqual([a.uuid]);
    const available = await ideas.listAvailable(pm, { projectUuid: p.uuid });
    expect(available.ideas.map((i) => i.uuid)).toEqual([c.uuid, a.uuid]);
    expect(available.total).toBe(2);
    await expectAppError(ideas.list(mallory, { projectUuid: p.uuid }), 'NOT_FOUND', 'Project not found');
    await expectAppError(ideas.listAvailable(mallory, { projectUuid: p.uuid }), 'NOT_FOUND', 'Project not found');
  });

  it('returns proposals listing the idea and the report documents of those proposals, newest first', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborated' });
    const other = await world.domain.idea(alice, projectUuid);
    const p1 = await world.domain.proposal(alice, projectUuid, { inputUuids: [idea.uuid, other.uuid], status: 'approved', title: 'P1' });
    const p2 = await world.domain.proposal(alice, projectUuid, { inputUuids: [idea.uuid], status: 'draft', title: 'P2' });
    await world.domain.proposal(alice, projectUuid, { inputUuids: [other.uuid], status: 'approved' });
    const r1 = await world.domain.document(alice, projectUuid, { proposalUuid: p1.uuid, type: 'report', title: 'R1' });
    await new Promise((r) => setTimeout(r, 5));
    const r2 = await world.domain.document(alice, projectUuid, { proposalUuid: p1.uuid, type: 'report', title: 'R2' });
    await world.domain.document(alice, projectUuid, { proposalUuid: p1.uuid, type: 'prd' });
    const rec = await ideas.get(bob, { ideaUuid: idea.uuid });
    expect(rec.proposals).toEqual([
      { uuid: p1.uuid, title: 'P1', status: 'approved' },
      { uuid: p2.uuid, title: 'P2', status: 'draft' },
    ]);
    expect(rec.reports).toEqual([
      { uuid: r2.uuid, title: 'R2', proposalUuid: p1.uuid, createdAt: r2.createdAt.toISOString() },
      { uuid: r1.uuid, title: 'R1', proposalUuid: p1.uuid, createdAt: r1.createdAt.toISOString() },
    ]);
    expect(rec.elaborationDepth).toBe('standard');
    await expectAppError(ideas.get(mallory, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('edit (svc_edit_idea)', () => {
  it('edits title, content and theme flag: one event, one edited activity, a mention source with before/after', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { title: 'Old', content: 'old text' });
    world.h.takeEvents();
    mutations.length = 0;
    const r = await ideas.edit(pm, { ideaUuid: idea.uuid, title: ' New ', content: 'new text', isContainer: true });
    expect(r).toMatchObject({ title: 'New', content: 'new text', isContainer: true });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await activities(idea.uuid)).at(-1)).toEqual({ action: 'edited', project_uuid: projectUuid, value: { fields: ['title', 'content', 'isContainer'] }, actor_uuid: pm.uuid });
    expect(textsOf(mutations[0])).toEqual([
      { sourceType: 'idea', sourceUuid: idea.uuid, entityType: 'idea', entityUuid: idea.uuid, entityTitle: 'New', projectUuid, before: 'old text', after: 'new text' },
    ]);
  });

  it('reparents (events for idea, old and new parent; one merged activity) and detaches with null', async () => {
    const p1 = await world.domain.idea(alice, projectUuid, { isContainer: true });
    const p2 = await world.domain.idea(alice, projectUuid, { isContainer: true });
    const idea = await world.domain.idea(alice, projectUuid, { parentUuid: p1.uuid });
    world.h.takeEvents();
    const r = await ideas.edit(alice, { ideaUuid: idea.uuid, parentUuid: p2.uuid, title: 'Moved under p2' });
    expect(r.parent).toEqual({ uuid: p2.uuid, title: p2.title });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated'), ev('idea', p1.uuid, projectUuid, 'updated'), ev('idea', p2.uuid, projectUuid, 'updated')]);
    const acts = await activities(idea.uuid);
    expect(acts).toHaveLength(2);
    expect(acts[1]).toMatchObject({
      action: 'reparented',
      value: { fromParentUuid: p1.uuid, toParentUuid: p2.uuid, changes: [{ action: 'edited', fields: ['title'] }, { action: 'reparented', fromParentUuid: p1.uuid, toParentUuid: p2.uuid }] },
    });
    const detached = await ideas.edit(alice, { ideaUuid: idea.uuid, parentUuid: null });
    expect(detached).toMatchObject({ parentUuid: null, parent: null });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated'), ev('idea', p2.uuid, projectUuid, 'updated')]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'reparented', value: { fromParentUuid: p2.uuid, toParentUuid: null } });
  });

  it('an edit that changes nothing writes no activity and publishes nothing', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { title: 'Same', content: 'c' });
    world.h.takeEvents();
    const before = await ideaRow(idea.uuid);
    const r = await ideas.edit(alice, { ideaUuid: idea.uuid, title: 'Same', content: 'c', isContainer: false, parentUuid: null });
    expect(r.title).toBe('Same');
    expect(world.h.takeEvents()).toEqual([]);
    expect(await ideaRow(idea.uuid)).toEqual(before);
    expect((await activities(idea.uuid)).map((a) => a.action)).toEqual(['created']);
  });

  it('refuses with the messages of docs/tool-conventions.md and leaves everything unchanged', async () => {
    const root = await world.domain.idea(alice, projectUuid, { isContainer: true });
    const mid = await world.domain.idea(alice, projectUuid, { parentUuid: root.uuid, isContainer: true });
    const leaf = await world.domain.idea(alice, projectUuid, { parentUuid: mid.uuid });
    const elsewhere = await world.domain.idea(alice, otherProjectUuid);
    const foreign = await world.domain.idea(mallory, (await world.domain.project(mallory)).uuid);
    world.h.takeEvents();
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, parentUuid: root.uuid }), 'VALIDATION_ERROR', 'An idea cannot be its own parent');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, parentUuid: elsewhere.uuid }), 'VALIDATION_ERROR', 'Parent idea must be in the same project');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, parentUuid: leaf.uuid }), 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, parentUuid: mid.uuid }), 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, parentUuid: foreign.uuid }), 'NOT_FOUND', 'Parent idea not found');
    await refused(() => ideas.edit(alice, { ideaUuid: root.uuid, title: '' }), 'VALIDATION_ERROR');
    await refused(() => ideas.edit(mallory, { ideaUuid: root.uuid, title: 'Hijack' }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('claim (svc_claim_idea)', () => {
  it('open -> elaborating with the caller as assignee, an assigned activity and one event', async () => {
    const idea = await world.domain.idea(alice, projectUuid);
    world.h.takeEvents();
    const r = await ideas.claim(pm, { ideaUuid: idea.uuid });
    expect(r).toMatchObject({ status: 'elaborating', derivedStatus: 'in_progress', assignee: { type: 'agent', uuid: pm.uuid, name: 'PM', assignedBy: { type: 'agent', uuid: pm.uuid } } });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await activities(idea.uuid)).at(-1)).toEqual({ action: 'assigned', project_uuid: projectUuid, value: { assignee: { type: 'agent', uuid: pm.uuid } }, actor_uuid: pm.uuid });
  });

  it('claiming again by the assignee, or by its owner user, is an unchanged success without event or activity', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    const ownedByUser = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: alice });
    world.h.takeEvents();
    for (const [actor, uuid] of [
      [pm, idea.uuid],
      [alice, idea.uuid],
      [pm, elaborated.uuid],
      [pm, ownedByUser.uuid],
    ] as const) {
      const before = await ideaRow(uuid);
      const acts = (await activities(uuid)).length;
      const r = await ideas.claim(actor, { ideaUuid: uuid });
      expect(r.assignee?.uuid).toBe(before!.assignee_uuid);
      expect(await ideaRow(uuid)).toEqual(before);
      expect(await activities(uuid)).toHaveLength(acts);
    }
    expect(world.h.takeEvents()).toEqual([]);
  });

  it('anyone else gets INVALID_STATE and nothing changes', async () => {
    const elaborating = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    await refused(() => ideas.claim(pm2, { ideaUuid: elaborating.uuid }), 'INVALID_STATE', 'Idea is elaborating; claim requires open');
    await refused(() => ideas.claim(bob, { ideaUuid: elaborating.uuid }), 'INVALID_STATE', 'Idea is elaborating; claim requires open');
    await refused(() => ideas.claim(pm2, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; claim requires open');
    await refused(() => ideas.claim(malloryAgent, { ideaUuid: elaborating.uuid }), 'NOT_FOUND', 'Idea not found');
  });
  it('two concurrent claims of one open idea: exactly one wins, the other sees the new state', async () => {
    const idea = await world.domain.idea(alice, projectUuid);
    world.h.takeEvents();
    const results = await Promise.allSettled([ideas.claim(pm, { ideaUuid: idea.uuid }), ideas.claim(pm2, { ideaUuid: idea.uuid })]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toMatchObject({ code: 'INVALID_STATE', message: 'Idea is elaborating; claim requires open' });
    expect(world.h.takeEvents()).toHaveLength(1);
    expect((await activities(idea.uuid)).filter((a) => a.action === 'assigned')).toHaveLength(1);
  });
});

describe('release (svc_release_idea)', () => {
  it('elaborating -> open: clears assignee, depth and elaboration status, keeps rounds', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    world.h.takeEvents();
    const r = await ideas.release(pm, { ideaUuid: idea.uuid });
    expect(r).toMatchObject({ status: 'open', derivedStatus: 'todo', assignee: null, elaborationStatus: null, elaborationDepth: null });
    const row = await ideaRow(idea.uuid);
    expect(row).toMatchObject({ assigned_at: null, assigned_by_type: null, assigned_by_uuid: null });
    const state = await elaboration.getState(alice, { ideaUuid: idea.uuid });
    expect(state.rounds).toHaveLength(1);
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'released', value: { assignee: { type: 'agent', uuid: pm.uuid } } });
  });

  it('the owner user of the assigned agent may release (identity rule)', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    expect((await ideas.release(alice, { ideaUuid: idea.uuid })).status).toBe('open');
  });

  it('refuses non-assignees (FORBIDDEN, also for an open idea) and an elaborated idea (INVALID_STATE)', async () => {
    const elaborating = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    const open = await world.domain.idea(alice, projectUuid);
    await refused(() => ideas.release(pm2, { ideaUuid: elaborating.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => ideas.release(bob, { ideaUuid: elaborating.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => ideas.release(pm, { ideaUuid: open.uuid }), 'FORBIDDEN', 'Only the assignee can release this idea');
    await refused(() => ideas.release(pm, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; release requires elaborating');
    await refused(() => ideas.release(mallory, { ideaUuid: elaborating.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('assign (REST only)', () => {
  it('open -> elaborating for a user; elaborating -> reassigned to an agent; same target again changes nothing', async () => {
    const idea = await world.domain.idea(alice, projectUuid);
    world.h.takeEvents();
    const r = await ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: bob.uuid });
    expect(r).toMatchObject({ status: 'elaborating', assignee: { type: 'user', uuid: bob.uuid, name: 'Bob', assignedBy: { type: 'user', uuid: alice.uuid, name: 'Alice' } } });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, projectUuid, 'updated')]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'assigned', value: { assignee: { type: 'user', uuid: bob.uuid } }, actor_uuid: alice.uuid });
    const again = await ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: pm2.uuid });
    expect(again).toMatchObject({ status: 'elaborating', assignee: { type: 'agent', uuid: pm2.uuid } });
    expect(world.h.takeEvents()).toHaveLength(1);
    const before = await ideaRow(idea.uuid);
    await ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: pm2.uuid });
    expect(await ideaRow(idea.uuid)).toEqual(before);
    expect(world.h.takeEvents()).toEqual([]);
  });

  it('accepts an agent whose custom bits add idea:write', async () => {
    const { agent } = await world.ids.agent(alice.companyUuid, alice.uuid, { preset: 'developer_agent', permissions: ['idea:write'], name: 'DevPlus' });
    const idea = await world.domain.idea(alice, projectUuid);
    expect((await ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: agent.uuid })).assignee?.uuid).toBe(agent.uuid);
  });

  it('refuses targets without idea:write, archived or foreign targets, and an elaborated idea', async () => {
    const idea = await world.domain.idea(alice, projectUuid);
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated' });
    const { agent: archived } = await world.ids.agent(alice.companyUuid, alice.uuid, { preset: 'pm_agent' });
    await world.ds.query(`UPDATE agent SET archived_at = now() WHERE uuid = $1`, [archived.uuid]);
    await refused(() => ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: dev.uuid }), 'VALIDATION_ERROR', 'Agent "Dev" does not have idea:write permission');
    await refused(() => ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: archived.uuid }), 'NOT_FOUND', 'Agent not found');
    await refused(() => ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'agent', assigneeUuid: malloryAgent.uuid }), 'NOT_FOUND', 'Agent not found');
    await refused(() => ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: mallory.uuid }), 'NOT_FOUND', 'User not found');
    await refused(() => ideas.assign(alice, { ideaUuid: idea.uuid, assigneeType: 'robot' as never, assigneeUuid: bob.uuid }), 'VALIDATION_ERROR');
    await refused(() => ideas.assign(alice, { ideaUuid: elaborated.uuid, assigneeType: 'user', assigneeUuid: bob.uuid }), 'INVALID_STATE', 'Idea is elaborated; assign requires open or elaborating');
    await refused(() => ideas.assign(mallory, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: mallory.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('delete (svc_admin_delete_idea)', () => {
  it('detaches children, removes rounds, comments and references, keeps activities and proposals', async () => {
    const parent = await world.domain.idea(alice, projectUuid, { isContainer: true });
    const idea = await ideas.create(alice, {
      projectUuid,
      title: 'Doomed',
      parentUuid: parent.uuid,
      references: [{ type: 'docs', url: 'https://d.example', title: 'D' }],
    });
    await ideas.claim(alice, { ideaUuid: idea.uuid });
    await elaboration.start(alice, { ideaUuid: idea.uuid, depth: 'standard', questions: [question('q1')] });
    const c1 = await world.domain.idea(alice, projectUuid, { parentUuid: idea.uuid });
    const c2 = await world.domain.idea(alice, projectUuid, { parentUuid: idea.uuid });
    const proposal = await world.domain.proposal(alice, projectUuid, { inputUuids: [idea.uuid] });
    await world.ds.query(
      `INSERT INTO comment (uuid, company_uuid, target_type, target_uuid, content, author_type, author_uuid) VALUES ($1, $2, 'idea', $3, 'hi', 'user', $4)`,
      [randomUUID(), alice.companyUuid, idea.uuid, alice.uuid],
    );
    world.h.takeEvents();
    expect(await ideas.delete(admin, { ideaUuid: idea.uuid })).toEqual({ uuid: idea.uuid, deleted: true });
    const events = world.h.takeEvents();
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
    expect((await ideas.get(alice, { ideaUuid: c1.uuid })).parentUuid).toBeNull();
    expect((await ideas.get(alice, { ideaUuid: parent.uuid })).childCount).toBe(0);
    const count = async (sql: string): Promise<number> => (await world.ds.query(sql, [idea.uuid]))[0].n;
    expect(await count(`SELECT count(*)::int AS n FROM elaboration_round WHERE idea_uuid = $1`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM comment WHERE target_uuid = $1`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM reference WHERE target_uuid = $1`)).toBe(0);
    expect((await activities(idea.uuid)).map((a) => a.action)).toEqual(['created', 'assigned', 'elaboration_started', 'deleted']);
    const [kept] = await world.ds.query(`SELECT input_uuids FROM proposal WHERE uuid = $1`, [proposal.uuid]);
    expect(kept.input_uuids).toEqual([idea.uuid]);
    await expectAppError(ideas.get(alice, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
  });

  it('refuses another company and a missing idea', async () => {
    const idea = await world.domain.idea(alice, projectUuid);
    await refused(() => ideas.delete(mallory, { ideaUuid: idea.uuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.delete(alice, { ideaUuid: randomUUID() }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('tenant isolation', () => {
  it('every read and write with another company gives NOT_FOUND and changes nothing', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    const m = malloryAgent;
    const id = { ideaUuid: idea.uuid };
    await refused(() => ideas.get(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.list(m, { projectUuid }), 'NOT_FOUND', 'Project not found');
    await refused(() => ideas.listAvailable(m, { projectUuid }), 'NOT_FOUND', 'Project not found');
    await refused(() => ideas.create(m, { projectUuid, title: 'x' }), 'NOT_FOUND', 'Project not found');
    await refused(() => ideas.edit(m, { ...id, title: 'x' }), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.claim(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.release(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.assign(m, { ...id, assigneeType: 'agent', assigneeUuid: m.uuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.move(m, { ...id, targetProjectUuid: otherProjectUuid }), 'NOT_FOUND', 'Idea not found');
    await refused(() => ideas.delete(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => elaboration.getState(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => elaboration.start(m, { ...id, depth: 'standard', questions: [question('z')] }), 'NOT_FOUND', 'Idea not found');
    await refused(() => elaboration.answer(m, { ...id, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'NOT_FOUND', 'Idea not found');
    await refused(() => elaboration.validate(m, id), 'NOT_FOUND', 'Idea not found');
    await refused(() => elaboration.skip(m, { ...id, reason: 'r' }), 'NOT_FOUND', 'Idea not found');
    const round = (await elaboration.getState(alice, id)).rounds[0];
    const mine = await world.domain.idea(m, (await world.domain.project(m)).uuid, { state: 'elaborating' });
    world.h.takeEvents();
    await refused(() => elaboration.answer(m, { ideaUuid: mine.uuid, roundUuid: round.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'NOT_FOUND', 'Round not found');
    await refused(() => ideas.move(m, { ideaUuid: mine.uuid, targetProjectUuid: projectUuid }), 'NOT_FOUND', 'Target project not found');
    expect(await world.get(IdeaTrackerService).tracker(m, { projectScope: null })).toEqual({ [mine.projectUuid]: expect.anything() });
  });
});
