import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { expectRefused, tableRows } from '../utils/mcp-expect.js';
import { World, type WorldAgent } from '../utils/world.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
type Kind = 'idea' | 'proposal' | 'task' | 'document';
const DISPLAY: Record<Kind, string> = { idea: 'Idea', proposal: 'Proposal', task: 'Task', document: 'Document' };

describe('activity, comment, search and reference tools (e2e, MCP SDK client)', () => {
  let world: World;
  let events: RealtimeEvent[];
  let companyUuid: string;
  let aliceUuid: string;
  // Company A (users Alice and Bob): pm and dev of Alice's, pm2 and an admin agent of Bob's; company B: Mallory, an admin agent.
  let pm: WorldAgent;
  let pm2: WorldAgent;
  let dev: WorldAgent;
  let mallory: WorldAgent;
  let project: string;
  let groupUuid: string;
  const targets = {} as Record<Kind, string>;

  beforeAll(async () => {
    world = await World.start();
    const ca = await world.company();
    companyUuid = ca.uuid;
    const alice = await world.user(ca.uuid, { name: 'Alice' });
    aliceUuid = alice.uuid;
    const bob = await world.user(ca.uuid, { name: 'Bob' });
    const cb = await world.company();
    const malloryUser = await world.user(cb.uuid, { name: 'Mallory' });
    pm = await world.agent(ca.uuid, alice.uuid, { preset: 'pm_agent', name: 'PM' });
    pm2 = await world.agent(ca.uuid, bob.uuid, { preset: 'pm_agent', name: 'PM2' });
    dev = await world.agent(ca.uuid, alice.uuid, { preset: 'developer_agent', name: 'Dev' });
    await world.agent(ca.uuid, bob.uuid, { preset: 'admin_agent', name: 'Admin' }); // one of the mentionables
    mallory = await world.agent(cb.uuid, malloryUser.uuid, { preset: 'admin_agent', name: 'Mallory' });
    events = world.recordEvents();
    groupUuid = (await world.ok(pm, 'svc_admin_create_project_group', { name: 'Collab group' })).uuid;
    project = (await world.ok(pm, 'svc_admin_create_project', { name: 'Collab', groupUuid })).uuid;
    const a = pm.actor;
    targets.idea = (await world.ok(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'Quokka idea', content: 'about marsupials' })).uuid;
    targets.proposal = (await world.domain.proposal(a, project, { inputUuids: [targets.idea], title: 'Quokka proposal' })).uuid;
    targets.task = (await world.domain.task(a, project, { title: 'Wombat task' })).uuid;
    targets.document = (await world.domain.document(a, project, { title: 'Wombat doc' })).uuid;
  });
  afterAll(() => world.close());
  beforeEach(() => takeEvents());

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  /** The change event shape the bus carries, in company A. */
  const ev = (entityType: RealtimeEvent['entityType'], entityUuid: string, projectUuid: string, action: RealtimeEvent['action']): RealtimeEvent => ({ companyUuid, projectUuid, entityType, entityUuid, action });
  /** A refused call: the error code (and message), no change event and the domain tables unchanged; returns the error. */
  const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string) =>
    expectRefused(events, agent, name, args, { code, message, unchanged: () => tableRows(world.ds) });

  describe('svc_add_comment / svc_get_comments', () => {
    it.each(['idea', 'proposal', 'task', 'document'] as Kind[])('comments on a %s (CommentRecord) and publishes <targetType> updated', async (kind) => {
      const c = await world.ok(dev, 'svc_add_comment', { targetType: kind, targetUuid: targets[kind], content: `  First on ${kind}  ` });
      expect(c).toEqual({ uuid: expect.any(String), targetType: kind, targetUuid: targets[kind], content: `First on ${kind}`, author: { type: 'agent', uuid: dev.uuid, name: 'Dev' }, createdAt: ISO });
      expect(takeEvents()).toEqual([ev(kind, targets[kind], project, 'updated')]);
      await refused(dev, 'svc_add_comment', { targetType: kind, targetUuid: randomUUID(), content: 'x' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
      await refused(dev, 'svc_get_comments', { targetType: kind, targetUuid: randomUUID() }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
    });

    it('lists comments oldest first with paging', async () => {
      const t = (await world.domain.task(pm.actor, project)).uuid;
      const made = [];
      for (const text of ['one', 'two', 'three']) made.push((await world.ok(pm, 'svc_add_comment', { targetType: 'task', targetUuid: t, content: text })).uuid);
      const all = await world.ok(dev, 'svc_get_comments', { targetType: 'task', targetUuid: t });
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      expect(all.comments.map((c: any) => c.content)).toEqual(['one', 'two', 'three']);
      expect(all.comments[0]).toEqual({ uuid: made[0], targetType: 'task', targetUuid: t, content: 'one', author: { type: 'agent', uuid: pm.uuid, name: 'PM' }, createdAt: ISO });
      const second = await world.ok(dev, 'svc_get_comments', { targetType: 'task', targetUuid: t, page: 2, pageSize: 2 });
      expect(second.comments.map((c: any) => c.uuid)).toEqual([made[2]]);
    });

    it('refuses blank or oversized content and a target type that takes no comments', async () => {
      await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: '   ' }, 'VALIDATION_ERROR');
      const long = await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: 'x'.repeat(20_001) }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(long.details).toEqual([{ path: 'content', message: expect.any(String) }]);
      const kind = await refused(dev, 'svc_add_comment', { targetType: 'project', targetUuid: project, content: 'x' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(kind.details).toEqual([{ path: 'targetType', message: expect.any(String) }]);
    });
  });

  describe('svc_get_activity', () => {
    it("lists a project's activity newest first, optionally for one target", async () => {
      const p = (await world.ok(pm, 'svc_admin_create_project', { name: 'Activity' })).uuid;
      const i = await world.ok(pm, 'svc_pm_create_idea', { projectUuid: p, title: 'Tracked' });
      await world.ok(pm, 'svc_claim_idea', { ideaUuid: i.uuid });
      const other = await world.ok(pm, 'svc_pm_create_idea', { projectUuid: p, title: 'Other' });
      const all = await world.ok(dev, 'svc_get_activity', { projectUuid: p });
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      expect(all.activities.map((a: any) => [a.targetUuid, a.action])).toEqual([
        [other.uuid, 'created'],
        [i.uuid, 'assigned'],
        [i.uuid, 'created'],
      ]);
      expect(all.activities[2]).toEqual({
        uuid: expect.any(String),
        projectUuid: p,
        targetType: 'idea',
        targetUuid: i.uuid,
        actor: { type: 'agent', uuid: pm.uuid, name: 'PM' },
        action: 'created',
        value: { title: 'Tracked' },
        sessionUuid: null,
        sessionName: null,
        createdAt: ISO,
      });
      const one = await world.ok(dev, 'svc_get_activity', { projectUuid: p, targetType: 'idea', targetUuid: i.uuid });
      expect(one.activities.map((a: any) => a.action)).toEqual(['assigned', 'created']);
      const tasks = await world.ok(dev, 'svc_get_activity', { projectUuid: p, targetType: 'task' });
      expect(tasks).toMatchObject({ activities: [], total: 0 });
      const err = await refused(dev, 'svc_get_activity', { projectUuid: p, targetUuid: i.uuid }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual([{ path: 'targetUuid', message: 'requires targetType' }]);
      await refused(dev, 'svc_get_activity', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
    });
  });

  describe('svc_search', () => {
    it('finds records by text across types with counts, scopes and an exact uuid first', async () => {
      const res = await world.ok(dev, 'svc_search', { query: 'QUOKKA' });
      expect(res).toMatchObject({ page: 1, pageSize: 20, total: 2, counts: { tasks: 0, ideas: 1, proposals: 1, documents: 0, projects: 0, projectGroups: 0 } });
      expect(res.results.map((r: any) => r.uuid).sort()).toEqual([targets.idea, targets.proposal].sort());
      const ideaHit = res.results.find((r: any) => r.entityType === 'idea');
      expect(ideaHit).toEqual({ entityType: 'idea', uuid: targets.idea, title: 'Quokka idea', snippet: expect.any(String), status: 'open', projectUuid: project, projectName: 'Collab', updatedAt: ISO });

      const wombats = await world.ok(dev, 'svc_search', { query: 'wombat', scope: 'project', scopeUuid: project, entityTypes: ['document'] });
      expect(wombats.results.map((r: any) => r.uuid)).toEqual([targets.document]);
      expect(wombats.counts).toMatchObject({ documents: 1, tasks: 0 });
      const inGroup = await world.ok(dev, 'svc_search', { query: 'collab', scope: 'group', scopeUuid: groupUuid });
      expect(inGroup.results.map((r: any) => r.entityType).sort()).toEqual(['project', 'project_group']);

      const exact = await world.ok(dev, 'svc_search', { query: targets.task });
      expect(exact.results[0]).toMatchObject({ entityType: 'task', uuid: targets.task });
    });

    it('requires scopeUuid unless global and refuses unknown scopes', async () => {
      await refused(dev, 'svc_search', { query: 'x', scope: 'project' }, 'VALIDATION_ERROR', 'scopeUuid is required unless scope is global');
      await refused(dev, 'svc_search', { query: 'x', scope: 'project', scopeUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
      await refused(dev, 'svc_search', { query: 'x', scope: 'group', scopeUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
      const empty = await refused(dev, 'svc_search', { query: '' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(empty.details).toEqual([{ path: 'query', message: expect.any(String) }]);
      const kind = await refused(dev, 'svc_search', { query: 'x', entityTypes: ['comment'] }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(kind.details).toEqual([{ path: 'entityTypes.0', message: expect.any(String) }]);
    });
  });

  describe('svc_search_mentionables', () => {
    it('finds users by name or email and non-archived agents by name, of the caller company only', async () => {
      const alice = await world.ok(dev, 'svc_search_mentionables', { query: 'alic' });
      expect(alice).toMatchObject({ page: 1, pageSize: 20, total: 1 });
      expect(alice.mentionables).toEqual([{ type: 'user', uuid: aliceUuid, name: 'Alice', email: expect.stringContaining('@example.test') }]);
      const pms = await world.ok(dev, 'svc_search_mentionables', { query: 'pm' });
      expect(pms.mentionables).toEqual([
        { type: 'agent', uuid: pm.uuid, name: 'PM', email: null },
        { type: 'agent', uuid: pm2.uuid, name: 'PM2', email: null },
      ]);
      const everyone = await world.ok(dev, 'svc_search_mentionables', {});
      expect(everyone.mentionables.map((m: any) => m.name)).toEqual(['Admin', 'Alice', 'Bob', 'Dev', 'PM', 'PM2']);
      expect((await world.ok(dev, 'svc_search_mentionables', { query: 'mallory' })).total).toBe(0);
      const long = await refused(dev, 'svc_search_mentionables', { query: 'x'.repeat(101) }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(long.details).toEqual([{ path: 'query', message: expect.any(String) }]);
    });
  });

  describe('references', () => {
    it.each(['idea', 'proposal', 'task'] as const)('svc_add_reference attaches a link to a %s and publishes <targetType> updated', async (kind) => {
      const ref = await world.ok(pm, 'svc_add_reference', { targetType: kind, targetUuid: targets[kind], type: 'repo', url: ' https://example.com/r ', title: 'Repo', notes: 'main' });
      expect(ref).toEqual({
        uuid: expect.any(String),
        targetType: kind,
        targetUuid: targets[kind],
        type: 'repo',
        url: 'https://example.com/r',
        title: 'Repo',
        notes: 'main',
        createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(takeEvents()).toEqual([ev(kind, targets[kind], project, 'updated')]);
      await refused(pm, 'svc_add_reference', { targetType: kind, targetUuid: randomUUID(), type: 'docs', url: 'https://e.com', title: 'T' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
    });

    it('svc_add_reference refuses a non-http URL, documents as targets and the 51st link', async () => {
      const t = (await world.domain.task(pm.actor, project)).uuid;
      const link = (i: number) => ({ targetType: 'task', targetUuid: t, type: 'docs', url: `https://e.com/${i}`, title: `L${i}` });
      await refused(pm, 'svc_add_reference', { ...link(0), url: 'javascript:alert(1)' }, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
      const doc = await refused(pm, 'svc_add_reference', { ...link(0), targetType: 'document', targetUuid: targets.document }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(doc.details).toEqual([{ path: 'targetType', message: expect.any(String) }]);
      for (let i = 0; i < 50; i++) await world.ok(pm, 'svc_add_reference', link(i));
      await refused(pm, 'svc_add_reference', link(50), 'VALIDATION_ERROR', 'Maximum 50 references per target');
    });

    it('svc_update_reference changes fields, clears notes with null, and publishes nothing when nothing changes', async () => {
      const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'idea', targetUuid: targets.idea, type: 'docs', url: 'https://e.com/a', title: 'A', notes: 'keep' });
      takeEvents();
      const updated = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, type: 'issue_pr', url: 'http://e.com/b', title: 'B' });
      expect(updated).toMatchObject({ uuid: ref.uuid, type: 'issue_pr', url: 'http://e.com/b', title: 'B', notes: 'keep', createdBy: { uuid: pm.uuid } });
      expect(takeEvents()).toEqual([ev('idea', targets.idea, project, 'updated')]);
      const cleared = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, notes: null });
      expect(cleared.notes).toBeNull();
      expect(takeEvents()).toEqual([ev('idea', targets.idea, project, 'updated')]);
      const same = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, title: 'B' });
      expect(same).toEqual(cleared);
      expect(takeEvents()).toEqual([]);

      await refused(pm, 'svc_update_reference', { referenceUuid: ref.uuid }, 'VALIDATION_ERROR', 'Nothing to update');
      await refused(pm, 'svc_update_reference', { referenceUuid: ref.uuid, url: 'ftp://e.com' }, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
      await refused(pm, 'svc_update_reference', { referenceUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Reference not found');
    });

    it('svc_remove_reference deletes the link and publishes <targetType> updated', async () => {
      const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'proposal', targetUuid: targets.proposal, type: 'paper_blog', url: 'https://e.com/p', title: 'Paper' });
      takeEvents();
      expect(await world.ok(pm, 'svc_remove_reference', { referenceUuid: ref.uuid })).toEqual({ uuid: ref.uuid, deleted: true });
      expect(takeEvents()).toEqual([ev('proposal', targets.proposal, project, 'updated')]);
      await refused(pm, 'svc_remove_reference', { referenceUuid: ref.uuid }, 'NOT_FOUND', 'Reference not found');
    });
  });

  describe('tenant isolation', () => {
    it("answers another company's uuids with NOT_FOUND", async () => {
      const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'task', targetUuid: targets.task, type: 'docs', url: 'https://e.com/t', title: 'Mine' });
      const m = mallory;
      await refused(m, 'svc_get_activity', { projectUuid: project }, 'NOT_FOUND', 'Project not found');
      for (const kind of ['idea', 'proposal', 'task', 'document'] as Kind[]) {
        await refused(m, 'svc_get_comments', { targetType: kind, targetUuid: targets[kind] }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
        await refused(m, 'svc_add_comment', { targetType: kind, targetUuid: targets[kind], content: 'hi' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
      }
      await refused(m, 'svc_add_reference', { targetType: 'idea', targetUuid: targets.idea, type: 'docs', url: 'https://e.com', title: 'T' }, 'NOT_FOUND', 'Idea not found');
      await refused(m, 'svc_update_reference', { referenceUuid: ref.uuid, title: 'Theirs' }, 'NOT_FOUND', 'Reference not found');
      await refused(m, 'svc_remove_reference', { referenceUuid: ref.uuid }, 'NOT_FOUND', 'Reference not found');
      await refused(m, 'svc_search', { query: 'quokka', scope: 'project', scopeUuid: project }, 'NOT_FOUND', 'Project not found');
      await refused(m, 'svc_search', { query: 'quokka', scope: 'group', scopeUuid: groupUuid }, 'NOT_FOUND', 'Project group not found');
      expect((await world.ok(m, 'svc_search', { query: 'quokka' })).total).toBe(0);
      expect((await world.ok(m, 'svc_search', { query: targets.task })).total).toBe(0);
    });
  });

  describe('arguments and permissions', () => {
    it('answers a wrong type, an unknown argument and a malformed uuid with VALIDATION_ERROR details', async () => {
      const wrongType = await refused(dev, 'svc_get_comments', { targetType: 'task', targetUuid: targets.task, page: '1' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(wrongType.details).toEqual([{ path: 'page', message: expect.any(String) }]);
      const unknown = await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: 'x', silent: true }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(unknown.details).toEqual([{ path: 'silent', message: 'should not exist' }]);
      const malformed = await refused(pm, 'svc_remove_reference', { referenceUuid: '1234' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(malformed.details).toEqual([{ path: 'referenceUuid', message: expect.any(String) }]);
      const several = await refused(pm, 'svc_update_reference', { referenceUuid: 'x', notes: 5, type: 'video' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(several.details.map((d: any) => d.path).sort()).toEqual(['notes', 'referenceUuid', 'type']);
    });

    it('lists the public tools to everyone and the reference tools with document:write only, with their hints', async () => {
      const publicOnes = ['svc_get_activity', 'svc_get_comments', 'svc_search', 'svc_search_mentionables', 'svc_add_comment'];
      const gated = ['svc_add_reference', 'svc_update_reference', 'svc_remove_reference'];
      const devNames = (await dev.client.listTools()).tools.map((t) => t.name);
      const pmTools = new Map((await pm.client.listTools()).tools.map((t) => [t.name, t]));
      for (const n of publicOnes) expect(devNames).toContain(n);
      for (const n of gated) expect(devNames).not.toContain(n);
      for (const n of [...publicOnes, ...gated]) expect(pmTools.has(n)).toBe(true);
      const hint = (n: string) => {
        const a = pmTools.get(n)!.annotations!;
        return `${a.readOnlyHint ? 'r' : ''}${a.destructiveHint ? 'd' : ''}${a.idempotentHint ? 'i' : ''}`;
      };
      expect([...publicOnes, ...gated].map(hint)).toEqual(['ri', 'ri', 'ri', 'ri', '', '', 'i', 'di']);
      await expect(dev.client.callTool({ name: 'svc_remove_reference', arguments: { referenceUuid: randomUUID() } })).rejects.toMatchObject({ code: -32602 });
    });
  });
});
