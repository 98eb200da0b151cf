import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { USER_PERMISSIONS, type Actor } from '../../src/shared/auth/actor.js';
import { effectivePermissions, type Permission, type Preset } from '../../src/shared/auth/permissions.js';
import { MutationHooks, TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { InProcessEventBus } from '../../src/shared/event-bus/in-process-event-bus.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import type { SeededUser } from '../factories/identity.factory.js';

/**
 * The kernel pieces a domain service needs, built by hand for integration tests (real PostgreSQL, real
 * in-process bus). `events` records every change event published after commit.
 */
export interface Harness {
  db: DataSource;
  bus: InProcessEventBus;
  hooks: MutationHooks;
  runner: TransactionRunner;
  events: RealtimeEvent[];
  /** Clears recorded events and returns what was recorded. */
  takeEvents(): RealtimeEvent[];
}

export function createHarness(db: DataSource): Harness {
  const bus = new InProcessEventBus((err) => {
    throw err;
  });
  const hooks = new MutationHooks();
  const logger = pino({ level: 'silent' });
  const runner = new TransactionRunner(db, bus, hooks, new MetricsService(), logger);
  const events: RealtimeEvent[] = [];
  bus.subscribe('change', (e) => events.push(e));
  return {
    db,
    bus,
    hooks,
    runner,
    events,
    takeEvents: () => events.splice(0, events.length),
  };
}

export function userActor(user: Pick<SeededUser, 'uuid' | 'companyUuid' | 'name'>): Actor {
  return { type: 'user', uuid: user.uuid, companyUuid: user.companyUuid, name: user.name, ownerUuid: null, permissions: USER_PERMISSIONS };
}

export function agentActor(agent: Pick<AgentRecord, 'uuid' | 'name' | 'preset' | 'permissions' | 'owner'>, companyUuid: string): Actor {
  return {
    type: 'agent',
    uuid: agent.uuid,
    companyUuid,
    name: agent.name,
    ownerUuid: agent.owner.uuid,
    permissions: new Set(effectivePermissions(agent.preset as Preset, agent.permissions as Permission[])),
  };
}
