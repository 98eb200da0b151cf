import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { ElaborationService, IdeaService, IdeaTrackerService } from '../../src/modules/ideas/index.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import type { DomainFactory } from '../factories/domain.factory.js';
import type { IdentityFactory } from '../factories/identity.factory.js';
import { expectIdeaRefused } from './expect-error.js';
import type { TestDatabase } from './test-database.js';
import { agentActor, userActor, World, type Harness } from './world.js';

/**
 * The idea tests' cast on `World.database()`: a fresh database with two companies and the cast the idea tests need: users alice and bob; agents pm (pm_agent,
 * owned by alice), pm2 (pm_agent, owned by bob), dev (developer_agent, owned by alice), admin (admin_agent, owned
 * by bob); and mallory in another company. `mutations` records what each committed mutation recorded (`activityCommitted`).
 *
 * @deprecated A cast over the one test world (test/utils/world.ts), kept until the suites that use it are rewritten on the
 * world's own seeders (README "Testing"); write new tests on `World` directly.
 */
export interface IdeaWorld {
  world: World;
  db: TestDatabase;
  h: Harness;
  f: DomainFactory;
  ideas: IdeaService;
  elaboration: ElaborationService;
  tracker: IdeaTrackerService;
  ids: IdentityFactory;
  alice: Actor;
  bob: Actor;
  pm: Actor;
  pm2: Actor;
  dev: Actor;
  admin: Actor;
  devRecord: AgentRecord;
  mallory: Actor;
  malloryAgent: Actor;
  mutations: MutationCommitted[];
  /** The stored idea row, for "unchanged on refusal" comparisons. */
  ideaRow(uuid: string): Promise<Record<string, unknown> | undefined>;
  /** Runs a call that must be refused with `code` (and `message`) and checks that nothing was written or published. */
  refused(call: () => Promise<unknown>, code: string, message?: string): Promise<void>;
  /** Closes the world: its compiled context, then its database. */
  close(): Promise<void>;
  /** Activity rows of one target, oldest first. */
  activities(targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>>;
}

export async function createIdeaWorld(): Promise<IdeaWorld> {
  const world = await World.database();
  const { db, h, ids } = world;
  const mutations: MutationCommitted[] = [];
  h.onCommitted((m) => {
    mutations.push(m);
  });
  const a = await ids.company();
  const aliceU = await ids.user(a.uuid, { name: 'Alice' });
  const bobU = await ids.user(a.uuid, { name: 'Bob' });
  const pm = await ids.agent(a.uuid, aliceU.uuid, { preset: 'pm_agent', name: 'PM' });
  const pm2 = await ids.agent(a.uuid, bobU.uuid, { preset: 'pm_agent', name: 'PM2' });
  const dev = await ids.agent(a.uuid, aliceU.uuid, { preset: 'developer_agent', name: 'Dev' });
  const admin = await ids.agent(a.uuid, bobU.uuid, { preset: 'admin_agent', name: 'Admin' });
  const b = await ids.company();
  const malloryU = await ids.user(b.uuid, { name: 'Mallory' });
  const malloryAgent = await ids.agent(b.uuid, malloryU.uuid, { preset: 'admin_agent', name: 'Evil' });
  const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
  return {
    world,
    db,
    h,
    close: () => world.close(),
    refused,
    f: world.domain,
    ideas: world.get(IdeaService),
    elaboration: world.get(ElaborationService),
    tracker: world.get(IdeaTrackerService),
    ids,
    alice: userActor(aliceU),
    bob: userActor(bobU),
    pm: agentActor(pm.agent, a.uuid),
    pm2: agentActor(pm2.agent, a.uuid),
    dev: agentActor(dev.agent, a.uuid),
    admin: agentActor(admin.agent, a.uuid),
    devRecord: dev.agent,
    mallory: userActor(malloryU),
    malloryAgent: agentActor(malloryAgent.agent, b.uuid),
    mutations,
    ideaRow: async (uuid) => (await db.dataSource.query(`SELECT * FROM idea WHERE uuid = $1`, [uuid]))[0],
    activities: (targetUuid) =>
      db.dataSource.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]),
  };
}
