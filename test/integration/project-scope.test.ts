import { ProjectGroupService, ProjectService } from '../../src/modules/projects/index.js';
import { randomUUID } from 'node:crypto';
import { resolveProjectScope } from '../../src/modules/assignments/index.js';
import { userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

describe('resolveProjectScope (docs/tool-conventions.md §2) against PostgreSQL', () => {
  let world: World;
  let db: TestDatabase;
  let company: string;
  let g1: string;
  let empty: string;
  let foreignGroup: string;
  let foreignProject: string;
  let p1: string;
  let p2: string;
  let p3: string;

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    const ids = world.ids;
    const projects = world.get(ProjectService);
    const groups = world.get(ProjectGroupService);
    const a = userActor(await ids.user((await ids.company()).uuid));
    const b = userActor(await ids.user((await ids.company()).uuid));
    company = a.companyUuid;
    g1 = (await groups.create(a, { name: 'G1' })).uuid;
    empty = (await groups.create(a, { name: 'Empty' })).uuid;
    foreignGroup = (await groups.create(b, { name: 'Foreign' })).uuid;
    p1 = (await projects.create(a, { name: 'P1', groupUuid: g1 })).uuid;
    p2 = (await projects.create(a, { name: 'P2', groupUuid: g1 })).uuid;
    p3 = (await projects.create(a, { name: 'P3' })).uuid;
    foreignProject = (await projects.create(b, { name: 'FP', groupUuid: foreignGroup })).uuid;
  });
  afterAll(() => world.close());

  const resolve = (headers: Record<string, string>) => resolveProjectScope(db.dataSource.manager, company, headers);

  it('is null (all projects) without a usable header', async () => {
    expect(await resolve({})).toBeNull();
    expect(await resolve({ 'x-service-project-group': ' ', 'x-service-project': '' })).toBeNull();
  });

  it('resolves a group of the company to its projects, anything else to the empty scope', async () => {
    expect(new Set(await resolve({ 'x-service-project-group': g1, 'x-service-project': p3 }))).toEqual(new Set([p1, p2]));
    for (const group of [empty, foreignGroup, randomUUID(), 'nope']) expect(await resolve({ 'x-service-project-group': group })).toEqual([]);
  });

  it('keeps only the listed projects of the company', async () => {
    expect(new Set(await resolve({ 'x-service-project': ` ${p3}, junk,,${foreignProject},${randomUUID()}, ${p1.toUpperCase()} ` }))).toEqual(new Set([p1, p3]));
    expect(await resolve({ 'x-service-project': `${foreignProject}, junk` })).toEqual([]);
  });
});
