import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { DomainFactory } from '../factories/domain.factory.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { userActor, World } from './world.js';
import type { ToolResult } from './mcp-client.js';

/** An agent as the tool tests drive it: its SDK client over real HTTP and its Actor for seeding. */
export interface McpAgent {
  uuid: string;
  name: string;
  client: Client;
  actor: Actor;
}

/**
 * The whole app plus a cast: company A with users alice and bob and agents pm (pm_agent, owner alice), pm2
 * (pm_agent, owner bob), dev (developer_agent, owner alice) and admin (admin_agent, owner bob); company B with
 * mallory (admin_agent). `events` records every change event of the in-process bus.
 */
export interface McpWorld {
  app: World;
  companyUuid: string;
  alice: Actor;
  bob: Actor;
  pm: McpAgent;
  pm2: McpAgent;
  dev: McpAgent;
  admin: McpAgent;
  mallory: McpAgent;
  /** Seeds rows the tools under test do not create (proposals, tasks, documents) through the app's runner. */
  f: DomainFactory;
  events: RealtimeEvent[];
  takeEvents(): RealtimeEvent[];
  call<T = any>(agent: McpAgent, name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; data: T }>;
  /** A successful call's result (fails the test on an isError result). */
  ok<T = any>(agent: McpAgent, name: string, args?: Record<string, unknown>): Promise<T>;
  /**
   * A refused call: asserts the error code (and message), that no change event was published and that the domain
   * tables are unchanged; returns the error object.
   */
  refused(agent: McpAgent, name: string, args: Record<string, unknown>, code: string, message?: string): Promise<Record<string, any>>;
  /** The change event shape the bus carries, in company A. */
  ev(entityType: RealtimeEvent['entityType'], entityUuid: string, projectUuid: string, action: RealtimeEvent['action']): RealtimeEvent;
  close(): Promise<void>;
}

const SNAPSHOT_TABLES = ['project', 'project_group', 'idea', 'elaboration_round', 'elaboration_question', 'proposal', 'task', 'document', 'comment', 'reference', 'activity', 'mention'];

export async function createMcpWorld(): Promise<McpWorld> {
  const app = await World.start();
  const ds = app.ds;
  const a = await app.company();
  const aliceU: SeededUser = await app.user(a.uuid, { name: 'Alice' });
  const bobU: SeededUser = await app.user(a.uuid, { name: 'Bob' });
  const b = await app.company();
  const malloryU = await app.user(b.uuid, { name: 'Mallory' });

  const agent = async (companyUuid: string, ownerUuid: string, preset: string, name: string): Promise<McpAgent> => {
    const { uuid, name: agentName, client, actor } = await app.agent(companyUuid, ownerUuid, { preset, name });
    return { uuid, name: agentName, client, actor };
  };

  const events = app.recordEvents();
  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);

  const snapshot = async (): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const t of SNAPSHOT_TABLES) out.push(await ds.query(`SELECT * FROM "${t}" ORDER BY uuid`));
    return out;
  };

  const call = <T>(who: McpAgent, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> => app.call<T>(who, name, args);

  return {
    app,
    companyUuid: a.uuid,
    alice: userActor(aliceU),
    bob: userActor(bobU),
    pm: await agent(a.uuid, aliceU.uuid, 'pm_agent', 'PM'),
    pm2: await agent(a.uuid, bobU.uuid, 'pm_agent', 'PM2'),
    dev: await agent(a.uuid, aliceU.uuid, 'developer_agent', 'Dev'),
    admin: await agent(a.uuid, bobU.uuid, 'admin_agent', 'Admin'),
    mallory: await agent(b.uuid, malloryU.uuid, 'admin_agent', 'Mallory'),
    f: new DomainFactory(ds, app.get(TransactionRunner)),
    events,
    takeEvents,
    call,
    ok: <T>(who: McpAgent, name: string, args: Record<string, unknown> = {}): Promise<T> => app.ok<T>(who, name, args),
    refused: async (who, name, args, code, message) => {
      takeEvents();
      const before = await snapshot();
      const res = await call<{ error: Record<string, any> }>(who, name, args);
      expect(res.isError).toBe(true);
      expect({ code: res.data.error?.code, message: res.data.error?.message }).toEqual({ code, message: message ?? expect.any(String) });
      expect(takeEvents()).toEqual([]);
      expect(await snapshot()).toEqual(before);
      return res.data.error;
    },
    ev: (entityType, entityUuid, projectUuid, action) => ({ companyUuid: a.uuid, projectUuid, entityType, entityUuid, action }),
    close: () => app.close(),
  };
}

/** Events compared without regard to order (the runner publishes them in recording order, which is not the contract). */
export function sortEvents(list: RealtimeEvent[]): RealtimeEvent[] {
  const key = (e: RealtimeEvent): string => `${e.entityType}:${e.entityUuid}:${e.projectUuid}:${e.action}`;
  return [...list].sort((x, y) => key(x).localeCompare(key(y)));
}
