import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { SearchService } from '../../src/modules/collaboration/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

let world: World;

let tdb: TestDatabase;
let db: DataSource;
let svc: SearchService;
let f: CollabFactory;
let user: Actor;
let other: Actor;
const ids: Record<string, string> = {};
let otherUuids: Set<string>;
let otherProjectUuid: string;
let otherGroupUuid: string;

const day = (n: number): Date => new Date(Date.UTC(2025, 0, n));

beforeAll(async () => {
  world = await World.database();
  tdb = world.db;
  db = tdb.dataSource;
  svc = world.get(SearchService);
  f = new CollabFactory(db);
  const idf = world.ids;
  const company = await idf.company();
  const u = await idf.user(company.uuid, { name: 'Sam Searcher', email: 'sam@corp.test' });
  user = userActor(u);
  const by = { type: 'user' as const, uuid: u.uuid };

  const group = await f.group(company.uuid, { name: 'Falcon Group', description: 'birds of prey' });
  const p1 = await f.project(company.uuid, { name: 'Falcon Web', groupUuid: group.uuid });
  const p2 = await f.project(company.uuid, { name: 'Hawk', groupUuid: group.uuid, description: 'a sibling of the falcon project' });
  const p3 = await f.project(company.uuid, { name: 'Orca' });
  Object.assign(ids, { group: group.uuid, p1: p1.uuid, p2: p2.uuid, p3: p3.uuid });

  ids.task1 = (await f.task(p1, by, { title: 'Build FALCON login' })).uuid;
  ids.idea1 = (await f.idea(p1, by, { title: 'Falcon idea', content: 'short content' })).uuid;
  ids.proposal1 = (await f.proposal(p1, by, { title: 'Unrelated title', description: 'ships the falcon release', status: 'pending' })).uuid;
  ids.doc1 = (await f.document(p1, by, { title: 'Spec', content: `${'lorem ipsum '.repeat(40)}the Falcon protocol ${'dolor sit '.repeat(40)}` })).uuid;
  ids.task3 = (await f.task(p3, by, { title: 'Whale watching', description: 'not a falcon at all' })).uuid;
  ids.idea3 = (await f.idea(p3, by, { title: 'Discount 50%_off', content: '' })).uuid;
  ids.task3b = (await f.task(p3, by, { title: 'Discount 50 percent off', description: 'x' })).uuid;
  // Mentions task1's uuid in its text: matches by text, but ranks after the exact uuid match.
  ids.doc3 = (await f.document(p3, by, { title: 'Links', content: `see ${ids.task1}` })).uuid;

  // Newest first among the "falcon" matches: group, p2, task3, doc1, proposal1, idea1, p1, task1.
  const order: Array<[Parameters<CollabFactory['setUpdatedAt']>[0], string]> = [
    ['project_group', group.uuid],
    ['project', p2.uuid],
    ['task', ids.task3],
    ['document', ids.doc1],
    ['proposal', ids.proposal1],
    ['idea', ids.idea1],
    ['project', p1.uuid],
    ['task', ids.task1],
  ];
  for (const [i, [table, uuid]] of order.entries()) await f.setUpdatedAt(table, uuid, day(20 - i));
  await f.setUpdatedAt('document', ids.doc3, day(25));

  const oc = await idf.company();
  const ou = await idf.user(oc.uuid, { name: 'Alice Other', email: 'alice@other.test' });
  other = userActor(ou);
  const og = await f.group(oc.uuid, { name: 'Falcon Group B' });
  const op = await f.project(oc.uuid, { name: 'Falcon B', groupUuid: og.uuid });
  otherProjectUuid = op.uuid;
  otherGroupUuid = og.uuid;
  const ob = { type: 'user' as const, uuid: ou.uuid };
  otherUuids = new Set([og.uuid, op.uuid, (await f.task(op, ob, { title: 'falcon task' })).uuid, (await f.idea(op, ob, { title: 'falcon idea' })).uuid]);
});

afterAll(() => world.close());

const uuidsOf = (r: { results: Array<{ uuid: string }> }): string[] => r.results.map((x) => x.uuid);

describe('SearchService.search', () => {
  it('finds every entity type by title or text, case-insensitively, newest first', async () => {
    const res = await svc.search(user, { query: 'falcon' });
    expect(uuidsOf(res)).toEqual([ids.group, ids.p2, ids.task3, ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
    expect(res.counts).toEqual({ tasks: 2, ideas: 1, proposals: 1, documents: 1, projects: 2, projectGroups: 1 });
    expect(res).toMatchObject({ page: 1, pageSize: 20, total: 8 });
    expect(uuidsOf(await svc.search(user, { query: 'fAlCoN' }))).toEqual(uuidsOf(res));
  });

  it('renders each result with status, project and snippet', async () => {
    const res = await svc.search(user, { query: 'falcon' });
    const by = new Map(res.results.map((r) => [r.uuid, r]));
    expect(by.get(ids.task1)).toEqual({
      entityType: 'task',
      uuid: ids.task1,
      title: 'Build FALCON login',
      snippet: '',
      status: 'open',
      projectUuid: ids.p1,
      projectName: 'Falcon Web',
      updatedAt: day(13).toISOString(),
    });
    expect(by.get(ids.proposal1)).toMatchObject({ entityType: 'proposal', status: 'pending', snippet: 'ships the falcon release', projectName: 'Falcon Web' });
    expect(by.get(ids.idea1)).toMatchObject({ entityType: 'idea', status: 'open', snippet: 'short content' });
    expect(by.get(ids.p2)).toMatchObject({ entityType: 'project', title: 'Hawk', status: null, projectUuid: ids.p2, projectName: 'Hawk', snippet: 'a sibling of the falcon project' });
    expect(by.get(ids.group)).toMatchObject({ entityType: 'project_group', title: 'Falcon Group', status: null, projectUuid: null, projectName: null, snippet: 'birds of prey' });
    const doc = by.get(ids.doc1)!;
    expect(doc).toMatchObject({ entityType: 'document', status: null, projectUuid: ids.p1 });
    expect(doc.snippet.length).toBeLessThanOrEqual(200);
    expect(doc.snippet).toContain('the Falcon protocol');
    expect(doc.snippet.startsWith('...')).toBe(true);
  });

  it('ranks an exact uuid match first, then text matches by updatedAt', async () => {
    const res = await svc.search(user, { query: ids.task1.toUpperCase() });
    expect(uuidsOf(res)).toEqual([ids.task1, ids.doc3]);
    expect(res.counts).toMatchObject({ tasks: 1, documents: 1 });
  });

  it('restricts to the requested entity types; counts cover what was searched', async () => {
    const res = await svc.search(user, { query: 'falcon', entityTypes: ['task', 'project_group'] });
    expect(uuidsOf(res)).toEqual([ids.group, ids.task3, ids.task1]);
    expect(res.counts).toEqual({ tasks: 2, ideas: 0, proposals: 0, documents: 0, projects: 0, projectGroups: 1 });
    expect(res.total).toBe(3);
  });

  it('scope project: that project\'s entities and the project itself, no groups', async () => {
    const res = await svc.search(user, { query: 'falcon', scope: 'project', scopeUuid: ids.p1 });
    expect(uuidsOf(res)).toEqual([ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
    expect(res.counts.projectGroups).toBe(0);
    const p3 = await svc.search(user, { query: 'falcon', scope: 'project', scopeUuid: ids.p3 });
    expect(uuidsOf(p3)).toEqual([ids.task3]);
  });

  it('scope group: the group, its projects and their entities', async () => {
    const res = await svc.search(user, { query: 'falcon', scope: 'group', scopeUuid: ids.group });
    expect(uuidsOf(res)).toEqual([ids.group, ids.p2, ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
    const empty = await f.group(user.companyUuid, { name: 'Empty falcon nest' });
    const onlyGroup = await svc.search(user, { query: 'falcon', scope: 'group', scopeUuid: empty.uuid });
    expect(uuidsOf(onlyGroup)).toEqual([empty.uuid]);
    await db.query('DELETE FROM project_group WHERE uuid = $1', [empty.uuid]);
  });

  it('takes LIKE wildcards literally', async () => {
    expect(uuidsOf(await svc.search(user, { query: '50%_off' }))).toEqual([ids.idea3]);
    expect(uuidsOf(await svc.search(user, { query: '50%' }))).toEqual([ids.idea3]);
    expect((await svc.search(user, { query: '%' })).results.map((r) => r.uuid)).toEqual([ids.idea3]);
    expect((await svc.search(user, { query: '_' })).total).toBe(1);
  });

  it('pages with a stable order and the full total', async () => {
    const all = uuidsOf(await svc.search(user, { query: 'falcon' }));
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(await svc.search(user, { query: 'falcon', page, pageSize: 3 }));
    expect(pages.flatMap(uuidsOf)).toEqual(all);
    expect(pages.map((p) => p.total)).toEqual([8, 8, 8]);
    expect(pages[2].counts).toEqual(pages[0].counts);
    expect((await svc.search(user, { query: 'falcon', page: 9 })).results).toEqual([]);
  });

  it('never returns another company\'s rows', async () => {
    const mine = await svc.search(user, { query: 'falcon', pageSize: 100 });
    expect(mine.results.some((r) => otherUuids.has(r.uuid))).toBe(false);
    const theirs = await svc.search(other, { query: 'falcon', pageSize: 100 });
    expect(new Set(uuidsOf(theirs))).toEqual(otherUuids);
    expect((await svc.search(other, { query: ids.task1 })).total).toBe(0);
  });

  it('validates query, scope, scopeUuid and entityTypes', async () => {
    const cases: Array<Record<string, unknown>> = [
      { query: '' },
      { query: '    ' },
      { query: 'x'.repeat(201) },
      { query: 'x', scope: 'world' },
      { query: 'x', scope: 'project' },
      { query: 'x', scope: 'group', scopeUuid: '' },
      { query: 'x', scope: 'project', scopeUuid: 'nope' },
      { query: 'x', entityTypes: ['task', 'comment'] },
      { query: 'x', pageSize: 101 },
    ];
    for (const input of cases) await expect(svc.search(user, input as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(svc.search(user, { query: 'x', scope: 'group' })).rejects.toMatchObject({ message: 'scopeUuid is required unless scope is global' });
    expect((await svc.search(user, { query: 'x'.repeat(200) })).total).toBe(0);
  });

  it('NOT_FOUND for a missing or another company\'s scope', async () => {
    for (const scopeUuid of [randomUUID(), otherProjectUuid]) {
      await expect(svc.search(user, { query: 'falcon', scope: 'project', scopeUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
    }
    for (const scopeUuid of [randomUUID(), otherGroupUuid, ids.p1]) {
      await expect(svc.search(user, { query: 'falcon', scope: 'group', scopeUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project group not found' });
    }
  });
});

describe('SearchService.mentionables', () => {
  const people: Record<string, string> = {};

  beforeAll(async () => {
    const idf = world.ids;
    const company = user.companyUuid;
    people.bob = (await idf.user(company, { name: 'bob Brown', email: 'bob@corp.test' })).uuid;
    people.alice = (await idf.user(company, { name: 'Alice Anders', email: 'anders@corp.test' })).uuid;
    people.carol = (await idf.user(company, { name: 'Carol', email: 'carol.alpha@corp.test' })).uuid;
    people.alpha = (await idf.agent(company, people.alice, { name: 'Alpha Bot' })).agent.uuid;
    people.archived = (await idf.agent(company, people.alice, { name: 'Alpine Archived' })).agent.uuid;
    await db.query('UPDATE agent SET archived_at = now() WHERE uuid = $1', [people.archived]);
    // Another company's agent with a matching name.
    await idf.agent(other.companyUuid, other.uuid, { name: 'Alpha Other' });
  });

  it('lists users and non-archived agents of the company by name, case-insensitively', async () => {
    const res = await svc.mentionables(user, {});
    expect(res.mentionables.map((m) => m.name)).toEqual(['Alice Anders', 'Alpha Bot', 'bob Brown', 'Carol', 'Sam Searcher']);
    expect(res).toMatchObject({ page: 1, pageSize: 20, total: 5 });
    expect(res.mentionables[0]).toEqual({ type: 'user', uuid: people.alice, name: 'Alice Anders', email: 'anders@corp.test' });
    expect(res.mentionables[1]).toEqual({ type: 'agent', uuid: people.alpha, name: 'Alpha Bot', email: null });
  });

  it('matches users by name or email and agents by name only', async () => {
    const al = await svc.mentionables(user, { query: '  AL ' });
    // Carol matches through her email; the archived agent and the other company's agent never appear.
    expect(al.mentionables.map((m) => m.uuid)).toEqual([people.alice, people.alpha, people.carol]);
    expect((await svc.mentionables(user, { query: 'bob@corp' })).mentionables.map((m) => m.uuid)).toEqual([people.bob]);
    expect((await svc.mentionables(user, { query: 'Other' })).total).toBe(0);
    expect((await svc.mentionables(user, { query: '%' })).total).toBe(0);
  });

  it('pages with the full total', async () => {
    const p1 = await svc.mentionables(user, { pageSize: 2 });
    const p3 = await svc.mentionables(user, { pageSize: 2, page: 3 });
    expect(p1.total).toBe(5);
    expect(p1.mentionables.map((m) => m.name)).toEqual(['Alice Anders', 'Alpha Bot']);
    expect(p3.mentionables.map((m) => m.name)).toEqual(['Sam Searcher']);
  });

  it('never returns another company\'s people', async () => {
    const res = await svc.mentionables(other, { pageSize: 100 });
    expect(res.mentionables.map((m) => m.name)).toEqual(['Alice Other', 'Alpha Other']);
  });

  it('refuses a query over 100 characters', async () => {
    await expect(svc.mentionables(user, { query: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await svc.mentionables(user, { query: 'x'.repeat(100) })).total).toBe(0);
  });
});
