import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { MUTATION_EVENTS, type MutationCommitted, type NewNotificationFrame } from '../../shared/event-bus/events.js';
import type { AnyDomainEvent } from '../../shared/events/domain-events.js';
import { LOGGER, requestContext } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { snippet } from '../collaboration/index.js';
import {
  messageFor,
  NOTIFYING_EVENTS,
  planNotifications,
  recipientsFor,
  type Candidate,
  type NotificationAction,
  type NotifiedEntityType,
  type PlannedNotification,
  type Ref,
} from './domain/notification.rules.js';
import { NotificationFactsRepository, type EntityRow } from './notification-facts.repository.js';
import { NotificationEntity } from './notification.entity.js';
import { recipientKey } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { publishFrames, recordFrames, reservePositions, type PositionedFrame } from './notification-frames.js';
import { countUnreadMany, insertNotifications } from './notification.repository.js';

const refKey = (r: Ref): string => `${r.type}:${r.uuid}`;
const refOf = (type: Ref['type'] | null, uuid: string | null): Ref | null => (type && uuid ? { type, uuid } : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length ? v : null);

/** A row as generation writes it; the database fills the timestamps (clock_timestamp(), in insert order). */
type NewNotification = Omit<NotificationEntity, 'readAt' | 'archivedAt' | 'snoozedUntil' | 'createdAt' | 'updatedAt' | 'position' | 'arrivalPosition'>;

/**
 * Turns a committed mutation's domain events — those of NOTIFYING_EVENTS, and the new mentions collaboration recorded
 * inside the transaction (`mention.created`) — into notification rows (docs/notifications.md §4, §5): reacts to
 * `MUTATION_EVENTS.committed` on the instance that performed the mutation, before its call returns. Relayed bus messages never reach it. One batch of notification
 * rows per mutation, then one `new_notification` frame per distinct recipient. A failure is logged and never
 * changes the mutation's result.
 */
@Injectable()
export class NotificationGenerator {
  constructor(
    private readonly db: DataSource,
    private readonly bus: EventBus,
    private readonly metrics: MetricsService,
    private readonly log: StreamLog,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @OnEvent(MUTATION_EVENTS.committed)
  async onCommitted(mutation: MutationCommitted): Promise<void> {
    try {
      await this.generate(mutation);
    } catch (err) {
      this.logger.error(
        {
          requestId: requestContext.getStore()?.requestId,
          err: err instanceof Error ? err.message : String(err),
          stack: err instanceof Error ? err.stack : undefined,
        },
        'notification generation failed',
      );
    }
  }

  /** Computes, stores and announces the batch of one mutation. */
  async generate({ actor, events }: MutationCommitted): Promise<void> {
    const notifying = events.flatMap((e) => {
      const action = NOTIFYING_EVENTS[e.name];
      return action ? [{ e, action }] : [];
    });
    const mentions = events.flatMap((e) => (e.name === 'mention.created' ? [e.payload] : []));
    if (!notifying.length && !mentions.length) return;
    const facts = new NotificationFactsRepository(this.db.manager);
    const candidates = await this.eventCandidates(facts, actor, notifying);

    for (const { source: s, mentioned } of mentions) {
      candidates.push({
        action: 'mentioned',
        recipients: mentioned,
        entity: { type: s.entityType, uuid: s.entityUuid, title: s.entityTitle, projectUuid: s.projectUuid },
        message: messageFor('mentioned', { actorName: actor.name, title: s.entityTitle, snippet: snippet(s.after) }),
        commentUuid: s.sourceType === 'comment' ? s.sourceUuid : null,
      });
    }

    const everyone = [...new Map(candidates.flatMap((c) => c.recipients).map((r) => [refKey(r), r])).values()];
    const [archived, prefs, projects] = await Promise.all([
      facts.archivedAgents(everyone.filter((r) => r.type === 'agent').map((r) => r.uuid)),
      facts.preferencesOf(actor.companyUuid, everyone),
      facts.projectNames(actor.companyUuid, [...new Set(candidates.map((c) => c.entity.projectUuid))]),
    ]);
    const planned = planNotifications(candidates, {
      actor: { type: actor.type, uuid: actor.uuid },
      isArchivedAgent: (r) => archived.has(r.uuid),
      wants: (r, field) => prefs.get(refKey(r))?.[field] ?? true,
    });
    if (!planned.length) return;

    const rows = planned.map((p) => this.row(actor, p, projects));
    // One transaction: each recipient's next position first (one per recipient: the batch's), the rows stamped with
    // it, then each recipient's frame logged there, so a frame exists exactly when its rows do. Published after commit.
    const frames = await this.db.transaction(async (em) => {
      const positions = await reservePositions(this.log, em, rows.map((r) => ({ type: r.recipientType, uuid: r.recipientUuid })));
      const at = (r: NewNotification): string => String(positions.get(recipientKey(r.recipientType, r.recipientUuid))!);
      await insertNotifications(em, rows.map((r) => ({ ...r, position: at(r), arrivalPosition: at(r) })));
      return this.announce(em, rows, positions);
    });
    publishFrames(this.bus, this.metrics, frames);
  }

  /** §4.1–4.2 for the events that notify: recipients and message from the entity as it is after the mutation. */
  private async eventCandidates(
    facts: NotificationFactsRepository,
    actor: Actor,
    notifying: Array<{ e: AnyDomainEvent; action: Exclude<NotificationAction, 'mentioned'> }>,
  ): Promise<Candidate[]> {
    const entities = await facts.entities(actor.companyUuid, notifying.map(({ e }) => ({ type: e.target.type, uuid: e.target.uuid })));
    const inputIdeas = notifying
      .filter(({ action }) => action === 'proposal_submitted')
      .flatMap(({ e }) => {
        const p = entities.get(`proposal:${e.target.uuid}`);
        return p?.inputType === 'idea' ? (p.inputUuids ?? []) : [];
      });
    const creators = await facts.ideaCreators(actor.companyUuid, [...new Set(inputIdeas)]);
    const actorOwner: Ref | null = actor.type === 'agent' && actor.ownerUuid ? { type: 'user', uuid: actor.ownerUuid } : null;

    const out: Candidate[] = [];
    for (const { e, action } of notifying) {
      const row = entities.get(`${e.target.type}:${e.target.uuid}`);
      if (!row) continue;
      const entityType = e.target.type as NotifiedEntityType;
      const people = {
        creator: refOf(row.createdByType, row.createdByUuid),
        assignee: refOf(row.assigneeType, row.assigneeUuid),
        inputIdeaCreators: row.inputType === 'idea' ? (row.inputUuids ?? []).flatMap((u) => creators.get(u) ?? []) : [],
      };
      out.push({
        action,
        recipients: recipientsFor(action, entityType, people, actorOwner),
        entity: { type: entityType, uuid: row.uuid, title: row.title, projectUuid: row.projectUuid },
        message: messageFor(action, { actorName: actor.name, title: row.title, ...this.details(e, row) }),
        commentUuid: e.name === 'comment.added' ? str(e.payload.commentUuid) : null,
      });
    }
    return out;
  }

  /** The new status and the review note come with the event; the row after the mutation is the fallback. */
  private details(e: AnyDomainEvent, row: EntityRow): { status: string | null; reviewNote: string | null } {
    const status = e.name === 'task.status_changed' ? e.payload.to : null;
    const reviewNote = e.name === 'proposal.approved' || e.name === 'proposal.rejected' ? e.payload.reviewNote : null;
    return { status: str(status) ?? row.status, reviewNote: str(reviewNote) ?? str(row.reviewNote) };
  }

  private row(actor: Actor, p: PlannedNotification, projects: Map<string, string>): NewNotification {
    return {
      uuid: randomUUID(),
      companyUuid: actor.companyUuid,
      projectUuid: p.entity.projectUuid,
      projectName: projects.get(p.entity.projectUuid) ?? '',
      recipientType: p.recipient.type,
      recipientUuid: p.recipient.uuid,
      entityType: p.entity.type,
      entityUuid: p.entity.uuid,
      entityTitle: p.entity.title,
      action: p.action,
      message: p.message,
      actorType: actor.type,
      actorUuid: actor.uuid,
      actorName: actor.name,
    };
  }

  /**
   * §3: one `new_notification` per distinct recipient, copied from its first row, with its count after insert (read
   * in the inserting transaction), positioned and logged there.
   */
  private async announce(em: EntityManager, rows: NewNotification[], positions: Map<string, number>): Promise<PositionedFrame[]> {
    const first = new Map<string, NewNotification>();
    for (const r of rows) {
      const k = refKey({ type: r.recipientType, uuid: r.recipientUuid });
      if (!first.has(k)) first.set(k, r);
    }
    if (!first.size) return [];
    const refs = [...first.values()].map((r): Ref => ({ type: r.recipientType, uuid: r.recipientUuid }));
    const counts = await countUnreadMany(em, refs);
    const frames = refs.map((ref): { to: Ref; frame: NewNotificationFrame; n: number } => {
      const r = first.get(refKey(ref))!;
      return {
        to: ref,
        n: positions.get(recipientKey(ref.type, ref.uuid))!,
        frame: {
          type: 'new_notification',
          notificationUuid: r.uuid,
          unreadCount: counts.get(refKey(ref)) ?? 0,
          action: r.action,
          actorName: r.actorName,
          entityTitle: r.entityTitle,
          entityType: r.entityType,
          entityUuid: r.entityUuid,
          projectUuid: r.projectUuid,
        },
      };
    });
    return recordFrames(this.log, em, frames);
  }
}
