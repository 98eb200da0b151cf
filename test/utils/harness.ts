import { EventEmitter2 } from '@nestjs/event-emitter';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { USER_PERMISSIONS, type Actor } from '../../src/shared/auth/actor.js';
import { effectivePermissions, type Permission, type Preset } from '../../src/shared/auth/permissions.js';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EMITTER_DEFAULTS } from '../../src/shared/event-bus/emitter-event-bus.js';
import { MUTATION_EVENTS, type ActivityCommitted, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { InProcessEventBus } from '../../src/shared/event-bus/in-process-event-bus.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { ActivityService, MentionService } from '../../src/modules/collaboration/index.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { bindOnEvent } from './on-event.js';

/**
 * The kernel pieces a domain service needs, built by hand for integration tests (real PostgreSQL, real
 * in-process bus on a real EventEmitter2, with collaboration's audit writer bound as the app binds it). `events`
 * records every change event published after commit.
 */
export interface Harness {
  db: DataSource;
  emitter: EventEmitter2;
  bus: InProcessEventBus;
  runner: TransactionRunner;
  events: RealtimeEvent[];
  /** Clears recorded events and returns what was recorded. */
  takeEvents(): RealtimeEvent[];
  /** Calls `listener` with what every committed mutation recorded (activities, texts, new mentions). */
  onCommitted(listener: (m: ActivityCommitted) => void): void;
}

export function createHarness(db: DataSource): Harness {
  const emitter = new EventEmitter2(EMITTER_DEFAULTS);
  const bus = new InProcessEventBus((err) => {
    throw err;
  }, emitter);
  const logger = pino({ level: 'silent' });
  const runner = new TransactionRunner(db, bus, emitter, new MetricsService(), logger);
  bindOnEvent(emitter, new ActivityService(db, new MentionService()));
  const events: RealtimeEvent[] = [];
  bus.subscribe('change', (e) => events.push(e));
  return {
    db,
    emitter,
    bus,
    runner,
    events,
    takeEvents: () => events.splice(0, events.length),
    onCommitted: (listener) => {
      emitter.on(MUTATION_EVENTS.activityCommitted, listener);
    },
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
