import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { IdeaService } from '../../src/modules/ideas/index.js';
import { TaskService, TaskTrackerService } from '../../src/modules/tasks/index.js';
import { RESULT_CAP_BYTES } from '../../src/modules/tool-kit/tool-result.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { expectRefused, sortedKeys } from '../utils/mcp-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/** svc_get_my_assignments (docs/tool-conventions.md §2, §3) through the official SDK client, with the scoping headers. */
describe('svc_get_my_assignments (e2e)', () => {
  let world: World;
  let events: RealtimeEvent[];
  let companyUuid: string;
  let ownerUser: SeededUser;
  let owner: Actor;
  let dev: WorldAgent;
  let ideas: IdeaService;
  let taskService: TaskService;
  let me: WorldAgent;
  let myOwner: Actor;
  // Group g1 holds p1 and p2, p3 is ungrouped, g2 is empty; fg/fp belong to the foreign company.
  let g1: string;
  let g2: string;
  let p1: string;
  let p2: string;
  let p3: string;
  let fg: string;
  let fp: string;
  const mine: Record<string, string> = {};

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  const scoped = (headers: Record<string, string>): Promise<Client> => world.mcp(me.key, headers);
  const assignments = async (client: Client | WorldAgent): Promise<any> => {
    const res = await world.call(client, 'svc_get_my_assignments');
    expect(res.isError).toBe(false);
    return res.data;
  };
  const projectsOf = (r: { ideaTracker: object; taskTracker: object }) => ({ ideas: Object.keys(r.ideaTracker), tasks: Object.keys(r.taskTracker) });

  beforeAll(async () => {
    world = await World.start();
    const c = await world.company();
    companyUuid = c.uuid;
    ownerUser = await world.user(c.uuid, { name: 'Owner' });
    owner = userActor(ownerUser);
    dev = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev' });
    const f = await world.company();
    const foreignOwner = userActor(await world.user(f.uuid, { name: 'Mallory' }));
    events = world.recordEvents();
    ideas = world.seeding(IdeaService);
    taskService = world.seeding(TaskService);
    const u = await world.user(companyUuid, { name: 'My owner' });
    myOwner = userActor(u);
    me = await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'Me' });
    g1 = (await world.group(owner, { name: 'G1' })).uuid;
    g2 = (await world.group(owner, { name: 'G2' })).uuid;
    p1 = await world.project(owner, { groupUuid: g1 });
    p2 = await world.project(owner, { groupUuid: g1 });
    p3 = await world.project(owner);
    fg = (await world.group(foreignOwner, { name: 'FG' })).uuid;
    fp = await world.project(foreignOwner, { groupUuid: fg });

    // Ideas: mine in p1 and p3 (one through my owner), someone else's in p2.
    const idea = async (project: string, assignee: Actor, title: string): Promise<string> => {
      const created = await ideas.create(owner, { projectUuid: project, title });
      await ideas.claim(assignee, { ideaUuid: created.uuid });
      return created.uuid;
    };
    mine.ideaP1 = await idea(p1, me.actor, 'Idea p1');
    mine.ideaP3 = await idea(p3, myOwner, 'Idea p3 (owner)');
    await idea(p2, dev.actor, 'Not mine');

    // Tasks: mine in every project of company A, plus finished and other people's ones that must not show.
    const task = async (project: string, assignee: Actor, title: string, priority: 'low' | 'medium' | 'high' = 'medium'): Promise<string> => {
      const uuid = (await world.task(owner, project, { title, priority })).uuid;
      await taskService.claim(assignee, { taskUuid: uuid });
      return uuid;
    };
    mine.p1low = await task(p1, me.actor, 'p1 low', 'low');
    mine.p1high = await task(p1, me.actor, 'p1 high', 'high');
    mine.p1high2 = await task(p1, myOwner, 'p1 high later (owner)', 'high');
    mine.p2 = await task(p2, me.actor, 'p2');
    mine.p3 = await task(p3, me.actor, 'p3');
    const done = await task(p3, me.actor, 'p3 done');
    await taskService.close(owner, { taskUuid: done });
    await task(p2, dev.actor, 'dev task');
    takeEvents();
  }, 60_000);
  afterAll(() => world.close());

  it('returns both trackers across every project without headers, shaped and ordered per docs/tool-conventions.md §3', async () => {
    const r = await assignments(me);
    expect(sortedKeys(r)).toEqual(['ideaTracker', 'taskTracker']);
    // Keys follow each project's first row: ideas by latest update, tasks by priority then latest assignment.
    expect(Object.keys(r.ideaTracker)).toEqual([p3, p1]);
    expect(Object.keys(r.taskTracker)).toEqual([p1, p3, p2]);
    expect(r.taskTracker[p1].name).toEqual(expect.stringMatching(/^Project /));
    expect(r.taskTracker[p1].tasks.map((t: { uuid: string }) => t.uuid)).toEqual([mine.p1high2, mine.p1high, mine.p1low]);
    expect(r.taskTracker[p3].tasks.map((t: { uuid: string }) => t.uuid)).toEqual([mine.p3]);
    const row = r.taskTracker[p2].tasks[0];
    expect(row).toEqual({ uuid: mine.p2, title: 'p2', status: 'assigned', priority: 'medium', assignedAt: expect.any(String), acceptance: { passed: 0, total: 3 } });
    expect(r.ideaTracker[p1].ideas).toEqual([
      {
        uuid: mine.ideaP1,
        title: 'Idea p1',
        status: 'elaborating',
        derivedStatus: expect.any(String),
        elaborationStatus: null,
        proposalCount: 0,
        taskCount: 0,
        updatedAt: expect.any(String),
      },
    ]);
    expect(r.ideaTracker[p3].ideas.map((i: { uuid: string }) => i.uuid)).toEqual([mine.ideaP3]);
    expect(r.truncated).toBeUndefined();
    expect(takeEvents()).toEqual([]);
  });

  it('scopes to the projects of a group, and the group header wins over the project header', async () => {
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': g1 })))).toEqual({ ideas: [p1], tasks: [p1, p2] });
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': ` ${g1.toUpperCase()} `, 'X-Service-Project': p3 })))).toEqual({ ideas: [p1], tasks: [p1, p2] });
  });

  it('gives an empty scope for an empty, unknown, foreign or malformed group, never all projects; unknown ones warn', async () => {
    // A known group without projects is a plain empty scope, without warnings.
    expect(await assignments(await scoped({ 'X-Service-Project-Group': g2, 'X-Service-Project': p3 }))).toEqual({ ideaTracker: {}, taskTracker: {} });
    for (const group of [randomUUID(), fg, 'not-a-group']) {
      expect(await assignments(await scoped({ 'X-Service-Project-Group': ` ${group} `, 'X-Service-Project': p3 }))).toEqual({
        ideaTracker: {},
        taskTracker: {},
        warnings: [`X-Service-Project-Group: ${group} matches no project group of your company; the scope is empty`],
      });
    }
  });

  it('scopes to a project list, ignoring blanks, junk, foreign and unknown projects, with a warning for each ignored value', async () => {
    const exact = await assignments(await scoped({ 'X-Service-Project': p3 }));
    expect(projectsOf(exact)).toEqual({ ideas: [p3], tasks: [p3] });
    expect(exact.warnings).toBeUndefined();
    const unknown = randomUUID();
    const messy = ` ${p3} ,, junk , ${fp}, ${unknown} ,${p2.toUpperCase()}, junk`;
    const r = await assignments(await scoped({ 'X-Service-Project': messy }));
    expect(projectsOf(r)).toEqual({ ideas: [p3], tasks: [p3, p2] });
    expect(r.warnings).toEqual([
      'X-Service-Project: junk matches no project of your company; ignored',
      `X-Service-Project: ${fp} matches no project of your company; ignored`,
      `X-Service-Project: ${unknown} matches no project of your company; ignored`,
    ]);
    // A blank group header does not count: the project list decides.
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': '  ', 'X-Service-Project': p2 })))).toEqual({ ideas: [], tasks: [p2] });
    for (const [list, ignored] of [
      ['junk, nope', ['junk', 'nope']],
      [`${fp}`, [fp]],
      [`${unknown},`, [unknown]],
    ] as const) {
      expect(await assignments(await scoped({ 'X-Service-Project': list }))).toEqual({
        ideaTracker: {},
        taskTracker: {},
        warnings: ignored.map((v) => `X-Service-Project: ${v} matches no project of your company; ignored`),
      });
    }
  });

  it('warns about a project header made only of separators (empty scope)', async () => {
    expect(await assignments(await scoped({ 'X-Service-Project': ' , ,' }))).toEqual({
      ideaTracker: {},
      taskTracker: {},
      warnings: ['X-Service-Project: , , names no project; the scope is empty'],
    });
  });

  it('caps the warnings: long values are cut and at most 20 are named', async () => {
    const long = 'x'.repeat(300);
    const values = [long, ...Array.from({ length: 24 }, (_, i) => `bad${i}`)];
    const r = await assignments(await scoped({ 'X-Service-Project': [p1, ...values].join(',') }));
    expect(projectsOf(r)).toEqual({ ideas: [p1], tasks: [p1] });
    expect(r.warnings).toHaveLength(21);
    expect(r.warnings[0]).toBe(`X-Service-Project: ${'x'.repeat(100)}… matches no project of your company; ignored`);
    expect(r.warnings[20]).toBe('X-Service-Project: 5 more value(s) match no project of your company; ignored');
  });

  it('does not warn without headers, for a known group, or from svc_checkin', async () => {
    expect((await assignments(me)).warnings).toBeUndefined();
    expect((await assignments(await scoped({ 'X-Service-Project-Group': g1, 'X-Service-Project': 'junk' }))).warnings).toBeUndefined();
    const checkin = await world.call(await scoped({ 'X-Service-Project': 'junk' }), 'svc_checkin');
    expect(checkin.data.warnings).toBeUndefined();
  });

  it('treats blank headers as no scope', async () => {
    const all = projectsOf(await assignments(me));
    expect(all).toEqual({ ideas: [p3, p1], tasks: [p1, p3, p2] });
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': ' ', 'X-Service-Project': '  ' })))).toEqual(all);
  });

  it('refuses arguments (it takes none)', async () => {
    const err = await expectRefused(events, me, 'svc_get_my_assignments', { projectUuid: p1 }, { code: 'VALIDATION_ERROR', message: 'Invalid arguments' });
    expect(err.details).toEqual([{ path: 'projectUuid', message: 'should not exist' }]);
  });

  it('cuts the task tracker from its tail above 64 KiB, keeping the ideas', async () => {
    const busy = await world.agent(companyUuid, ownerUser.uuid, { preset: 'pm_agent', name: 'Busy' });
    const created = await ideas.create(owner, { projectUuid: p1, title: 'Busy idea' });
    await ideas.claim(busy.actor, { ideaUuid: created.uuid });
    const title = (i: number): string => `${String(i).padStart(3, '0')}${'€'.repeat(197)}`;
    for (const [project, offset] of [
      [p1, 0],
      [p3, 50],
    ] as const) {
      const { tasks } = await taskService.createTasks(owner, {
        projectUuid: project,
        tasks: Array.from({ length: 50 }, (_, i) => ({ title: title(offset + i), acceptanceCriteriaItems: [{ description: 'x' }] })),
      });
      for (const t of tasks) await taskService.claim(busy.actor, { taskUuid: t.uuid });
    }
    takeEvents();
    const res = (await busy.client.callTool({ name: 'svc_get_my_assignments', arguments: {} })) as { content: Array<{ text: string }> };
    const text = res.content[0].text;
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    const out = JSON.parse(text);
    expect(out.truncated).toBe(true);
    expect(out.ideaTracker[p1].ideas.map((i: { uuid: string }) => i.uuid)).toEqual([created.uuid]);
    const full = await world.get(TaskTrackerService).tracker(busy.actor, null);
    const flat = (tracker: Record<string, { tasks: Array<{ uuid: string }> }>): string[] => Object.values(tracker).flatMap((p) => p.tasks.map((t) => t.uuid));
    const kept = flat(out.taskTracker);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(100);
    expect(kept).toEqual(flat(full).slice(0, kept.length));
  });
});
