import { randomUUID } from 'node:crypto';
import { ElaborationService, IdeaService, IdeaTrackerService, type QuestionInput } from '../../src/modules/ideas/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectAppError, expectIdeaRefused } from '../utils/expect-error.js';
import { textsOf, userActor, World } from '../utils/world.js';
import { question } from '../factories/domain.factory.js';

/**
 * One database for the file and the cast the `ideas` and `elaboration` blocks read (the `idea moves` and `idea
 * tracker` blocks seed worlds of their own): see the comments below. Each test seeds the ideas it reads.
 */
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

const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
const activities = (targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>> =>
  world.ds.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]);

describe('ideas', () => {
  beforeEach(() => {
    world.h.takeEvents();
    mutations.length = 0;
  });

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
});

describe('idea moves', () => {
  let world: World;
  let ideas: IdeaService;
  /** Alice and her pm agent (who moves ideas); Mallory and her admin agent in another company. */
  let alice: Actor;
  let pm: Actor;
  let mallory: Actor;
  let malloryAgent: Actor;

  beforeAll(async () => {
    world = await World.database();
    ideas = world.get(IdeaService);
    const a = (await world.company()).uuid;
    const aliceU = await world.user(a, { name: 'Alice' });
    alice = userActor(aliceU);
    pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    const b = (await world.company()).uuid;
    const malloryU = await world.user(b, { name: 'Mallory' });
    mallory = userActor(malloryU);
    malloryAgent = (await world.agent(b, malloryU.uuid, { preset: 'admin_agent', name: 'Evil' })).actor;
  });
  afterAll(() => world.close());
  beforeEach(() => world.h.takeEvents());

  const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
  const activities = (targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>> =>
    world.ds.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]);

  const ev = (entityType: string, entityUuid: string, projectUuid: string): Record<string, string> => ({
    companyUuid: alice.companyUuid,
    projectUuid,
    entityType,
    entityUuid,
    action: 'updated',
  });
  const projectOf = async (table: string, uuid: string): Promise<string> => (await world.ds.query(`SELECT project_uuid FROM ${table} WHERE uuid = $1`, [uuid]))[0].project_uuid;

  describe('move (svc_move_idea, docs/domain.md §8)', () => {
    it('moves the subtree, the proposals naming it and their tasks and documents; detaches the root; events in both projects', async () => {
      const source = (await world.domain.project(alice, { name: 'Source' })).uuid;
      const target = (await world.domain.project(alice, { name: 'Target' })).uuid;
      const parent = await world.domain.idea(alice, source, { isContainer: true, title: 'Stays' });
      const root = await ideas.create(alice, { projectUuid: source, title: 'Root', isContainer: true, parentUuid: parent.uuid, references: [{ type: 'docs', url: 'https://r.example', title: 'R' }] });
      const c1 = await world.domain.idea(alice, source, { parentUuid: root.uuid, state: 'elaborated', title: 'C1' });
      const c2 = await world.domain.idea(alice, source, { parentUuid: root.uuid, title: 'C2' });
      const g = await world.domain.idea(alice, source, { parentUuid: c1.uuid, state: 'elaborated', title: 'G' });
      const outsider = await world.domain.idea(alice, source, { state: 'elaborated', title: 'Outsider' });
      const p1 = await world.domain.proposal(alice, source, { inputUuids: [c1.uuid], status: 'approved' });
      const p2 = await world.domain.proposal(alice, source, { inputUuids: [outsider.uuid, g.uuid], status: 'draft' });
      const p3 = await world.domain.proposal(alice, source, { inputUuids: [outsider.uuid], status: 'approved' });
      const t1 = await world.domain.task(alice, source, { proposalUuid: p1.uuid, status: 'done' });
      const t2 = await world.domain.task(alice, source, { proposalUuid: p1.uuid });
      await world.domain.dependency(t2.uuid, t1.uuid);
      const d1 = await world.domain.document(alice, source, { proposalUuid: p1.uuid, type: 'report' });
      const t3 = await world.domain.task(alice, source, { proposalUuid: p3.uuid });
      const t4 = await world.domain.task(alice, source);
      const d2 = await world.domain.document(alice, source);
      world.h.takeEvents();

      const result = await ideas.move(pm, { ideaUuid: root.uuid, targetProjectUuid: target });
      expect(result.moved).toEqual({ ideas: 4, proposals: 2, documents: 1, tasks: 2 });
      expect(result.idea).toMatchObject({ uuid: root.uuid, projectUuid: target, parentUuid: null, parent: null, childCount: 2 });
      expect(result.idea.references).toHaveLength(1);

      for (const uuid of [root.uuid, c1.uuid, c2.uuid, g.uuid]) expect(await projectOf('idea', uuid)).toBe(target);
      for (const uuid of [p1.uuid, p2.uuid]) expect(await projectOf('proposal', uuid)).toBe(target);
      for (const uuid of [t1.uuid, t2.uuid]) expect(await projectOf('task', uuid)).toBe(target);
      expect(await projectOf('document', d1.uuid)).toBe(target);
      for (const [table, uuid] of [['idea', parent.uuid], ['idea', outsider.uuid], ['proposal', p3.uuid], ['task', t3.uuid], ['task', t4.uuid], ['document', d2.uuid]]) {
        expect(await projectOf(table, uuid)).toBe(source);
      }
      expect((await ideas.get(alice, { ideaUuid: c1.uuid })).parentUuid).toBe(root.uuid);
      expect((await ideas.get(alice, { ideaUuid: g.uuid })).parentUuid).toBe(c1.uuid);
      expect((await ideas.get(alice, { ideaUuid: parent.uuid })).childCount).toBe(0);
      expect((await world.domain.projects.get(alice, { projectUuid: target })).counts).toEqual({ ideas: 4, proposals: 2, documents: 1, tasks: 2 });
      expect((await world.domain.projects.get(alice, { projectUuid: source })).counts).toEqual({ ideas: 2, proposals: 1, documents: 1, tasks: 2 });

      const events = world.h.takeEvents();
      const expected = [
        ...[root, c1, c2, g].map((i) => ev('idea', i.uuid, source)),
        ev('idea', parent.uuid, source),
        ...[root, c1, c2, g].map((i) => ev('idea', i.uuid, target)),
        ev('proposal', p1.uuid, target),
        ev('proposal', p2.uuid, target),
        ev('task', t1.uuid, target),
        ev('task', t2.uuid, target),
        ev('document', d1.uuid, target),
      ];
      expect(events).toHaveLength(expected.length);
      expect(events).toEqual(expect.arrayContaining(expected));

      const acts = await activities(root.uuid);
      expect(acts.at(-1)).toEqual({
        action: 'moved',
        project_uuid: target,
        value: { fromProjectUuid: source, toProjectUuid: target, detachedFromParentUuid: parent.uuid, moved: result.moved },
        actor_uuid: pm.uuid,
      });
      for (const uuid of [c1.uuid, p1.uuid, t1.uuid, d1.uuid]) {
        expect((await activities(uuid)).at(-1)).toMatchObject({ action: 'moved', project_uuid: target, value: { fromProjectUuid: source, toProjectUuid: target, withIdeaUuid: root.uuid } });
      }
      // Earlier activities stay in the source project's stream.
      expect(acts[0]).toMatchObject({ action: 'created', project_uuid: source });
    });

    it('moves a lone idea: counts of one, events in both projects', async () => {
      const source = (await world.domain.project(alice)).uuid;
      const target = (await world.domain.project(alice)).uuid;
      const idea = await world.domain.idea(alice, source, { state: 'elaborating', assignee: pm });
      world.h.takeEvents();
      const r = await ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: target });
      expect(r).toMatchObject({ idea: { projectUuid: target, status: 'elaborating' }, moved: { ideas: 1, proposals: 0, documents: 0, tasks: 0 } });
      expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, source), ev('idea', idea.uuid, target)]);
    });

    it('refuses with CONFLICT when a dependency edge would cross projects, in either direction, changing nothing', async () => {
      const source = (await world.domain.project(alice)).uuid;
      const target = (await world.domain.project(alice)).uuid;
      const idea = await world.domain.idea(alice, source, { state: 'elaborated' });
      const proposal = await world.domain.proposal(alice, source, { inputUuids: [idea.uuid], status: 'approved' });
      const moving = await world.domain.task(alice, source, { proposalUuid: proposal.uuid });
      const staying = await world.domain.task(alice, source);
      await world.domain.dependency(moving.uuid, staying.uuid);
      const message = 'Idea cannot be moved: a moved task depends on or is depended on by a task that stays';
      await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: target }), 'CONFLICT', message);

      const idea2 = await world.domain.idea(alice, source, { state: 'elaborated' });
      const child = await world.domain.idea(alice, source, { parentUuid: idea2.uuid, state: 'elaborated' });
      const proposal2 = await world.domain.proposal(alice, source, { inputUuids: [child.uuid], status: 'approved' });
      const prerequisite = await world.domain.task(alice, source, { proposalUuid: proposal2.uuid });
      const dependent = await world.domain.task(alice, source);
      await world.domain.dependency(dependent.uuid, prerequisite.uuid);
      await refused(() => ideas.move(pm, { ideaUuid: idea2.uuid, targetProjectUuid: target }), 'CONFLICT', message);
    });

    it('refuses the same project, a missing or foreign target and a foreign idea', async () => {
      const source = (await world.domain.project(alice)).uuid;
      const idea = await world.domain.idea(alice, source);
      const foreign = await world.domain.project(mallory);
      await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: source }), 'VALIDATION_ERROR', 'Idea is already in the target project');
      await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Target project not found');
      await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: randomUUID() }), 'NOT_FOUND', 'Target project not found');
      await refused(() => ideas.move(malloryAgent, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Idea not found');
    });
  });
});

describe('the idea tracker', () => {
  let world: World;
  let tracker: IdeaTrackerService;
  /** Alice and Bob of one company; pm (pm_agent) and dev (developer_agent) are Alice's agents, pm2 Bob's; mallory's agent is of another company. */
  let alice: Actor;
  let bob: Actor;
  let pm: Actor;
  let pm2: Actor;
  let dev: Actor;
  let malloryAgent: Actor;
  let pA: string;
  let pB: string;
  let pC: string;

  beforeAll(async () => {
    world = await World.database();
    tracker = world.get(IdeaTrackerService);
    const a = (await world.company()).uuid;
    const aliceU = await world.user(a, { name: 'Alice' });
    const bobU = await world.user(a, { name: 'Bob' });
    [alice, bob] = [userActor(aliceU), userActor(bobU)];
    pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    pm2 = (await world.agent(a, bobU.uuid, { preset: 'pm_agent', name: 'PM2' })).actor;
    dev = (await world.agent(a, aliceU.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    const b = (await world.company()).uuid;
    malloryAgent = (await world.agent(b, (await world.user(b, { name: 'Mallory' })).uuid, { preset: 'admin_agent', name: 'Evil' })).actor;
    pA = (await world.domain.project(alice, { name: 'Alpha' })).uuid;
    pB = (await world.domain.project(alice, { name: 'Beta' })).uuid;
    pC = (await world.domain.project(alice, { name: 'Gamma' })).uuid;
  });
  afterAll(() => world.close());

  /** Pins an idea's updatedAt so the order under test does not depend on timing. */
  async function at(ideaUuid: string, minutesAgo: number): Promise<void> {
    await world.ds.query(`UPDATE idea SET updated_at = now() - make_interval(mins => $2) WHERE uuid = $1`, [ideaUuid, minutesAgo]);
  }
  const uuidsOf = (tracker: Record<string, { ideas: Array<{ uuid: string }> }>): string[][] => Object.values(tracker).map((p) => p.ideas.map((i) => i.uuid));

  describe('IdeaTrackerService.tracker (docs/tool-conventions.md §3)', () => {
    let mine: Array<{ uuid: string; project: string }>;
    let ownerIdea: string;

    beforeAll(async () => {
      // pm's ideas: B(1 min ago), A(2), B(3), C(4), A(5); alice's own idea (pm's owner) at 6; others' ideas newest of all.
      const plan: Array<[string, number]> = [
        [pB, 1],
        [pA, 2],
        [pB, 3],
        [pC, 4],
        [pA, 5],
      ];
      mine = [];
      for (const [project, ago] of plan) {
        const i = await world.domain.idea(alice, project, { state: 'elaborating', assignee: pm });
        await at(i.uuid, ago);
        mine.push({ uuid: i.uuid, project });
      }
      const own = await world.domain.idea(alice, pA, { state: 'elaborating', assignee: alice });
      await at(own.uuid, 6);
      ownerIdea = own.uuid;
      for (const who of [pm2, bob]) {
        const other = await world.domain.idea(alice, pA, { state: 'elaborating', assignee: who });
        await at(other.uuid, 0);
      }
      await world.domain.idea(alice, pA); // open, nobody's
    });

    it('lists my ideas (agent or its owner) newest first, grouped by project in order of first idea', async () => {
      const t = await tracker.tracker(pm, { projectScope: null });
      expect(Object.keys(t)).toEqual([pB, pA, pC]);
      expect(t[pB].name).toBe('Beta');
      expect(uuidsOf(t)).toEqual([
        [mine[0].uuid, mine[2].uuid],
        [mine[1].uuid, mine[4].uuid, ownerIdea],
        [mine[3].uuid],
      ]);
      expect(t[pB].ideas[0]).toEqual({
        uuid: mine[0].uuid,
        title: expect.any(String),
        status: 'elaborating',
        derivedStatus: 'in_progress',
        elaborationStatus: null,
        proposalCount: 0,
        taskCount: 0,
        updatedAt: expect.any(String),
      });
    });

    it('a user sees its own ideas and those of the agents it owns', async () => {
      const t = await tracker.tracker(alice, { projectScope: null });
      expect(uuidsOf(t).flat().sort()).toEqual([...mine.map((m) => m.uuid), ownerIdea].sort());
      const bobs = await tracker.tracker(bob, { projectScope: null });
      expect(uuidsOf(bobs).flat()).toHaveLength(2); // bob's own and pm2's
    });

    it('honours the scope: null = all, a list = those projects, empty = empty tracker', async () => {
      const scoped = await tracker.tracker(pm, { projectScope: [pA, pC] });
      expect(Object.keys(scoped)).toEqual([pA, pC]);
      expect(await tracker.tracker(pm, { projectScope: [] })).toEqual({});
      const foreign = await tracker.tracker(malloryAgent, { projectScope: [pA] });
      expect(foreign).toEqual({});
    });

    it('caps at the limit across projects (checkin: 10) keeping the order', async () => {
      const t = await tracker.tracker(pm, { projectScope: null, limit: 3 });
      expect(uuidsOf(t)).toEqual([[mine[0].uuid, mine[2].uuid], [mine[1].uuid]]);
      const extra: string[] = [];
      for (let i = 0; i < 8; i++) extra.push((await world.domain.idea(alice, pC, { state: 'elaborating', assignee: pm })).uuid);
      const ten = await tracker.tracker(pm, { projectScope: null, limit: 10 });
      expect(uuidsOf(ten).flat()).toHaveLength(10);
      expect(Object.keys(ten)[0]).toBe(pC);
      expect(uuidsOf(await tracker.tracker(pm, { projectScope: null })).flat()).toHaveLength(14);
    });

    it('counts pending and approved proposals and the tasks of the latest approved one', async () => {
      const i = await world.domain.idea(alice, pA, { state: 'elaborated', assignee: pm });
      const approved = await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'approved' });
      await world.domain.task(pm, pA, { proposalUuid: approved.uuid, status: 'to_verify' });
      await world.domain.task(pm, pA, { proposalUuid: approved.uuid, status: 'done' });
      await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'pending' });
      await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'draft' });
      await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'closed' });
      await at(i.uuid, -1);
      const t = await tracker.tracker(pm, { projectScope: [pA], limit: 1 });
      expect(t[pA].ideas).toEqual([
        {
          uuid: i.uuid,
          title: i.title,
          status: 'elaborated',
          derivedStatus: 'human_conduct_required',
          elaborationStatus: 'resolved',
          proposalCount: 2,
          taskCount: 2,
          updatedAt: expect.any(String),
        },
      ]);
    });

    it('ties on updatedAt break by uuid ascending', async () => {
      const p = (await world.domain.project(alice)).uuid;
      const actor: Actor = dev;
      const uuids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const idea = await world.domain.idea(alice, p, { state: 'elaborating', assignee: alice });
        await world.get(IdeaService).assign(alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: bob.uuid });
        uuids.push(idea.uuid);
      }
      await world.ds.query(`UPDATE idea SET updated_at = '2030-01-01T00:00:00Z' WHERE uuid = ANY($1::uuid[])`, [uuids]);
      const t = await tracker.tracker(bob, { projectScope: [p] });
      expect(t[p].ideas.map((i) => i.uuid)).toEqual([...uuids].sort());
      expect(await tracker.tracker(actor, { projectScope: [p] })).toEqual({});
    });
  });
});

describe('elaboration', () => {
  beforeEach(() => {
    world.h.takeEvents();
    mutations.length = 0;
  });

  const updated = (uuid: string): Record<string, string> => ({ companyUuid: alice.companyUuid, projectUuid, entityType: 'idea', entityUuid: uuid, action: 'updated' });
  const twoQuestions: QuestionInput[] = [question('q1'), question('q2', { category: 'scope', required: true }), question('opt', { required: false })];

  describe('start (svc_pm_start_elaboration)', () => {
    it('elaborating: the assignee opens round 1 (pending_answers), depth stored, activity and event', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      world.h.takeEvents();
      const state = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'comprehensive', questions: twoQuestions });
      expect(state).toEqual({
        ideaUuid: idea.uuid,
        ideaStatus: 'elaborating',
        depth: 'comprehensive',
        status: 'pending_answers',
        rounds: [
          {
            uuid: expect.any(String),
            roundNumber: 1,
            status: 'pending_answers',
            depth: 'comprehensive',
            isAppended: false,
            createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
            answeredAt: null,
            createdAt: expect.any(String),
            questions: [
              {
                uuid: expect.any(String),
                questionId: 'q1',
                text: 'Question q1?',
                category: 'functional',
                options: [
                  { id: 'a', label: 'Option A', description: null },
                  { id: 'b', label: 'Option B', description: 'the other one' },
                ],
                required: true,
                answer: null,
              },
              expect.objectContaining({ questionId: 'q2', category: 'scope', required: true }),
              expect.objectContaining({ questionId: 'opt', required: false }),
            ],
          },
        ],
        summary: { totalQuestions: 3, answeredQuestions: 0, pendingRoundUuid: state.rounds[0].uuid },
      });
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toEqual({
        action: 'elaboration_started',
        project_uuid: projectUuid,
        value: { roundUuid: state.rounds[0].uuid, roundNumber: 1, depth: 'comprehensive', questionCount: 3, isAppended: false },
        actor_uuid: pm.uuid,
      });
      expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('human_conduct_required');
    });

    it('a holder of idea:admin and any user may start for someone else; other agents are FORBIDDEN', async () => {
      const a = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      const b = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      expect((await elaboration.start(admin, { ideaUuid: a.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
      expect((await elaboration.start(bob, { ideaUuid: b.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
      const c = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      await refused(() => elaboration.start(pm2, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
      await refused(() => elaboration.start(dev, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
      // The owner user of the assignee agent is the assignee by the identity rule (and a user anyway).
      expect((await elaboration.start(alice, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
    });

    it('refuses an open idea, a round still awaiting answers and an 11th round', async () => {
      const open = await world.domain.idea(alice, projectUuid);
      await refused(() => elaboration.start(pm, { ideaUuid: open.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
      await refused(() => elaboration.start(alice, { ideaUuid: open.uuid, depth: 'minimal', questions: [question()] }), 'INVALID_STATE', 'Idea is open; start elaboration requires elaborating or elaborated');
      const pending = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
      await refused(() => elaboration.start(pm, { ideaUuid: pending.uuid, depth: 'minimal', questions: [question('z')] }), 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');
      const appended = await world.domain.idea(alice, projectUuid, { state: 'appended', assignee: pm });
      await refused(() => elaboration.start(pm, { ideaUuid: appended.uuid, depth: 'minimal', questions: [question('z')] }), 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');

      const busy = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      for (let i = 1; i <= 10; i++) {
        await elaboration.start(pm, { ideaUuid: busy.uuid, depth: 'minimal', questions: [question(`r${i}`)] });
        await elaboration.answer(alice, { ideaUuid: busy.uuid, answers: [{ questionId: `r${i}`, selectedOptionId: 'b' }] });
      }
      const state = await elaboration.getState(alice, { ideaUuid: busy.uuid });
      expect(state.rounds.map((r) => r.roundNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      await refused(() => elaboration.start(pm, { ideaUuid: busy.uuid, depth: 'minimal', questions: [question('r11')] }), 'VALIDATION_ERROR', 'Maximum 10 elaboration rounds per idea');
    });

    it('elaborated: appends a round, keeps the idea resolved and its depth', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
      world.h.takeEvents();
      const state = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'comprehensive', questions: [question('late')] });
      expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved', depth: 'standard' });
      expect(state.rounds[1]).toMatchObject({ roundNumber: 2, isAppended: true, status: 'pending_answers', depth: 'comprehensive' });
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_started', value: { isAppended: true, roundNumber: 2 } });
      expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('human_conduct_required');
    });

    it('rejects malformed rounds: counts, categories, duplicates, depth', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      const start = (questions: QuestionInput[], depth = 'standard') => () => elaboration.start(pm, { ideaUuid: idea.uuid, depth, questions });
      await refused(start([]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start(Array.from({ length: 16 }, (_, i) => question(`q${i}`))), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q', { options: [{ id: 'only', label: 'One' }] })]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q', { options: Array.from({ length: 6 }, (_, i) => ({ id: `o${i}`, label: `O${i}` })) })]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q', { category: 'mood' })]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q', { text: '  ' })]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q', { id: 'x'.repeat(51) })]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('q')], 'deep'), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(start([question('dup'), question('dup')]), 'VALIDATION_ERROR', 'Duplicate question id dup');
      await refused(start([question('q', { options: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }] })]), 'VALIDATION_ERROR', 'Duplicate option id a in question q');
    });
  });

  describe('answer (svc_answer_elaboration)', () => {
    it('stores answers from any caller; the round closes once every required question is answered', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      const started = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'standard', questions: twoQuestions });
      world.h.takeEvents();
      const partial = await elaboration.answer(bob, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'b', customText: '  because  ' }] });
      expect(partial).toMatchObject({ status: 'pending_answers', summary: { answeredQuestions: 1, pendingRoundUuid: started.rounds[0].uuid } });
      expect(partial.rounds[0].questions[0].answer).toEqual({ selectedOptionId: 'b', customText: 'because', answeredAt: expect.any(String), answeredBy: { type: 'user', uuid: bob.uuid, name: 'Bob' } });
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_answered', actor_uuid: bob.uuid, value: { roundNumber: 1, questionIds: ['q1'], roundAnswered: false } });

      const done = await elaboration.answer(dev, { ideaUuid: idea.uuid, roundUuid: started.rounds[0].uuid, answers: [{ questionId: 'q2', selectedOptionId: null, customText: 'free text' }] });
      expect(done).toMatchObject({ ideaStatus: 'elaborating', status: 'validating', summary: { totalQuestions: 3, answeredQuestions: 2, pendingRoundUuid: null } });
      expect(done.rounds[0]).toMatchObject({ status: 'answered', answeredAt: expect.any(String) });
      expect(done.rounds[0].questions[2].answer).toBeNull();
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_answered', value: { questionIds: ['q2'], roundAnswered: true } });
      expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('in_progress');
    });

    it('an appended round answered on an elaborated idea leaves it resolved', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'appended', assignee: pm });
      const state = await elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'more', selectedOptionId: 'a' }] });
      expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved' });
      expect(state.rounds[1].status).toBe('answered');
      expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('in_progress');
    });

    it('refuses unknown rounds, answered rounds, no pending round, and invalid answers', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'INVALID_STATE', 'Idea has no round in pending_answers; answer requires a pending round');
      const s1 = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'minimal', questions: [question('q1')] });
      await elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] });
      await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, roundUuid: s1.rounds[0].uuid, answers: [{ questionId: 'q1', selectedOptionId: 'b' }] }), 'INVALID_STATE', 'Round is answered; answer requires pending_answers');
      await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'minimal', questions: [question('q9')] });
      const otherIdea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
      const otherRound = (await elaboration.getState(alice, { ideaUuid: otherIdea.uuid })).rounds[0].uuid;
      const answer = (answers: unknown, roundUuid?: string) => () => elaboration.answer(alice, { ideaUuid: idea.uuid, roundUuid, answers: answers as never });
      await refused(answer([{ questionId: 'q9', selectedOptionId: 'a' }], randomUUID()), 'NOT_FOUND', 'Round not found');
      await refused(answer([{ questionId: 'q1', selectedOptionId: 'a' }], otherRound), 'NOT_FOUND', 'Round not found');
      await refused(answer([{ questionId: 'q1', selectedOptionId: 'a' }]), 'VALIDATION_ERROR', 'Unknown question q1');
      await refused(answer([{ questionId: 'q9', selectedOptionId: 'zz' }]), 'VALIDATION_ERROR', 'Unknown option zz for question q9');
      await refused(answer([{ questionId: 'q9', selectedOptionId: null, customText: '   ' }]), 'VALIDATION_ERROR', 'Question q9 needs an option or a non-empty customText');
      await refused(answer([{ questionId: 'q9' }]), 'VALIDATION_ERROR', 'Question q9 needs an option or a non-empty customText');
      await refused(answer([{ questionId: 'q9', customText: 'x'.repeat(5001) }]), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(answer([]), 'VALIDATION_ERROR', 'Invalid arguments');
      // A valid answer next to an invalid one writes nothing either.
      await refused(answer([{ questionId: 'q9', selectedOptionId: 'a' }, { questionId: 'nope', selectedOptionId: 'a' }]), 'VALIDATION_ERROR', 'Unknown question nope');
    });

    it('refuses answers on an idea that was released (open) even with a round left pending', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
      await ideas.release(pm, { ideaUuid: idea.uuid });
      await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'INVALID_STATE', 'Idea is open; answer requires elaborating or elaborated');
    });
  });

  describe('validate / resolve (svc_pm_validate_elaboration)', () => {
    it('elaborating with every round answered -> elaborated, resolved', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'validating', assignee: pm });
      world.h.takeEvents();
      const state = await elaboration.validate(admin, { ideaUuid: idea.uuid });
      expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved', depth: 'standard' });
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_resolved', actor_uuid: admin.uuid, value: { rounds: 1 } });
      const viaRest = await world.domain.idea(alice, projectUuid, { state: 'validating', assignee: pm });
      expect((await elaboration.resolve(bob, { ideaUuid: viaRest.uuid })).ideaStatus).toBe('elaborated');
    });

    it('refuses without rounds, with rounds awaiting answers and outside elaborating', async () => {
      const none = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      await refused(() => elaboration.validate(admin, { ideaUuid: none.uuid }), 'VALIDATION_ERROR', 'The idea has no elaboration rounds');
      const pending = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
      await refused(() => elaboration.validate(admin, { ideaUuid: pending.uuid }), 'VALIDATION_ERROR', '1 round(s) still await answers');
      const open = await world.domain.idea(alice, projectUuid);
      await refused(() => elaboration.validate(admin, { ideaUuid: open.uuid }), 'INVALID_STATE', 'Idea is open; validate elaboration requires elaborating');
      const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
      await refused(() => elaboration.validate(admin, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; validate elaboration requires elaborating');
      await refused(() => elaboration.validate(admin, { ideaUuid: randomUUID() }), 'NOT_FOUND', 'Idea not found');
    });
  });

  describe('skip (svc_pm_skip_elaboration)', () => {
    it('elaborating -> elaborated with depth minimal and the reason on the activity', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      world.h.takeEvents();
      const state = await elaboration.skip(pm, { ideaUuid: idea.uuid, reason: '  Agreed in chat  ' });
      expect(state).toMatchObject({ ideaStatus: 'elaborated', depth: 'minimal', status: 'resolved', rounds: [] });
      expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
      expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_skipped', value: { reason: 'Agreed in chat' } });
      for (const actor of [admin, bob]) {
        const other = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
        expect((await elaboration.skip(actor, { ideaUuid: other.uuid, reason: 'ok' })).ideaStatus).toBe('elaborated');
      }
    });

    it('refuses other agents, non-elaborating ideas and bad reasons', async () => {
      const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
      await refused(() => elaboration.skip(pm2, { ideaUuid: idea.uuid, reason: 'r' }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
      await refused(() => elaboration.skip(pm2, { ideaUuid: elaborated.uuid, reason: 'r' }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
      await refused(() => elaboration.skip(pm, { ideaUuid: elaborated.uuid, reason: 'r' }), 'INVALID_STATE', 'Idea is elaborated; skip elaboration requires elaborating');
      await refused(() => elaboration.skip(pm, { ideaUuid: idea.uuid, reason: '   ' }), 'VALIDATION_ERROR', 'Invalid arguments');
      await refused(() => elaboration.skip(pm, { ideaUuid: idea.uuid, reason: 'x'.repeat(2001) }), 'VALIDATION_ERROR', 'Invalid arguments');
    });
  });
});
