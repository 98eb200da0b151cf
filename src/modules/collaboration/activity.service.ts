import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DataSource, type EntityManager, type FindOptionsWhere } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { MUTATION_EVENTS } from '../../shared/event-bus/events.js';
import { activityAction, NOT_ACTIVITIES, type AnyDomainEvent } from '../../shared/events/domain-events.js';
import type { ActivityEntity } from './activity.entity.js';
import { ActivityRepository } from './activity.repository.js';
import { mergeActivities, type RecordedActivity } from './domain/activity-merge.js';
import { MentionService } from './mention.service.js';
import { PersonResolver } from '../../shared/database/person.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { toActivityRecord, type ActivityRecord } from './collaboration.records.js';
import { parseTargetType } from './target.js';

export interface ListActivityInput {
  projectUuid: string;
  targetType?: string;
  targetUuid?: string;
  page?: number;
  pageSize?: number;
}

async function toRecords(em: EntityManager, rows: ActivityEntity[]): Promise<ActivityRecord[]> {
  const people = await PersonResolver.load(em, rows.map((a) => ({ type: a.actorType, uuid: a.actorUuid })));
  return rows.map((a) => toActivityRecord(a, people));
}

/** The newest activities across several projects (group dashboard's `recentActivity`). */
export async function recentActivities(em: EntityManager, companyUuid: string, projectUuids: string[], limit: number): Promise<ActivityRecord[]> {
  if (!projectUuids.length) return [];
  return toRecords(em, await new ActivityRepository(em).recent(companyUuid, projectUuids, limit));
}

/** A domain event as an entry of the log: its verb the action, its payload the value (none when it carries nothing). */
function asActivity(e: AnyDomainEvent): RecordedActivity {
  const value = e.payload as Record<string, unknown>;
  return { uuid: e.uuid, projectUuid: e.projectUuid, targetType: e.target.type, targetUuid: e.target.uuid, action: activityAction(e.name), value: Object.keys(value).length ? value : null };
}

/**
 * The project's audit stream (docs/domain.md §2.18); activities outlive their targets. Services record what happened on
 * their transaction as typed domain events (`tx.record`, `tx.text`); before that transaction commits, `recordWithin`
 * writes the activity and mention rows with its manager, so they commit or roll back with the mutation.
 */
@Injectable()
export class ActivityService {
  constructor(
    private readonly db: DataSource,
    private readonly activities: ActivityRepository,
    private readonly mentions: MentionService,
  ) {}

  /**
   * Before the mutation commits, with its manager: one activity row per changed target from its domain events (the
   * event's verb is the row's action, its payload the value), and the new mentions of the texts it wrote, each
   * recorded back as a `mention.created` event for the reactions after commit. Errors are not suppressed: a failed
   * write rolls the mutation back, as any failure of its own would.
   */
  @OnEvent(MUTATION_EVENTS.beforeCommit, { suppressErrors: false })
  async recordWithin(tx: Tx): Promise<void> {
    const { actor, manager } = tx;
    const rows = mergeActivities(tx.events.filter((e) => !NOT_ACTIVITIES.has(e.name)).map(asActivity));
    if (rows.length) {
      const now = Date.now();
      await this.activities.in(tx).add(
        rows.map((a, i) => ({
          uuid: a.uuid,
          companyUuid: actor.companyUuid,
          projectUuid: a.projectUuid,
          targetType: a.targetType,
          targetUuid: a.targetUuid,
          actorType: actor.type,
          actorUuid: actor.uuid,
          action: a.action,
          value: a.value ?? null,
          sessionUuid: actor.session?.uuid ?? null,
          sessionName: actor.session?.name ?? null,
          // Distinct, ordered timestamps keep "newest first" stable within one mutation.
          createdAt: new Date(now + i),
        })),
      );
    }
    const texts = tx.events.flatMap((e) => (e.name === 'text.written' ? [e.payload] : []));
    for (const m of await this.mentions.record(manager, actor, texts)) {
      tx.record('mention.created', { projectUuid: m.source.projectUuid, uuid: m.source.entityUuid, type: m.source.entityType }, m);
    }
  }

  async list(actor: Actor, input: ListActivityInput): Promise<{ activities: ActivityRecord[] } & PageResult> {
    const p = paging(input);
    if (input.targetUuid != null && input.targetType == null) {
      throw new ValidationError('Invalid arguments', [{ field: 'targetUuid', message: 'requires targetType' }]);
    }
    const targetType = input.targetType != null ? parseTargetType(input.targetType) : undefined;
    if (input.targetUuid != null && !isUuid(input.targetUuid)) {
      throw new ValidationError('Invalid arguments', [{ field: 'targetUuid', message: 'must be a uuid' }]);
    }
    if (!isUuid(input.projectUuid)) throw new NotFoundError('Project');
    if (!(await this.activities.projectExists(input.projectUuid, actor.companyUuid))) throw new NotFoundError('Project');

    const where: FindOptionsWhere<ActivityEntity> = { companyUuid: actor.companyUuid, projectUuid: input.projectUuid };
    if (targetType) where.targetType = targetType;
    if (input.targetUuid != null) where.targetUuid = input.targetUuid;
    const [rows, total] = await this.activities.page(where, offsetOf(p), p.pageSize);
    return { activities: await toRecords(this.db.manager, rows), page: p.page, pageSize: p.pageSize, total };
  }
}
