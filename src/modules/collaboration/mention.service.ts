import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Actor } from '../../shared/auth/actor.js';
import type { DomainEventMap, MentionSource } from '../../shared/events/domain-events.js';

/** The new, valid mentions of one text, as written to the `mention` table. */
type RecordedMention = DomainEventMap['mention.created'];
import type { MentionEntity } from './collaboration.entity.js';
import { newMentions } from './domain/mentions.js';
import { validMentionTargets } from './mention-targets.queries.js';
import { MentionRepository } from './mention.repository.js';

/** The `mention` table's writer (docs/notifications.md §5): only the mentions a text newly gained, of valid targets. */
@Injectable()
export class MentionService {
  /** Writes, with the mutation's manager, the new mentions of each text; returns them per source (mentioned ones only). */
  async record(em: EntityManager, actor: Actor, sources: readonly MentionSource[]): Promise<RecordedMention[]> {
    const recorded: RecordedMention[] = [];
    const rows: Array<QueryDeepPartialEntity<MentionEntity>> = [];
    for (const source of sources) {
      const fresh = newMentions(source.before, source.after);
      if (!fresh.length) continue;
      const mentioned = await validMentionTargets(em, actor.companyUuid, actor, fresh);
      if (!mentioned.length) continue;
      recorded.push({ source, mentioned });
      for (const t of mentioned) {
        rows.push({
          uuid: randomUUID(),
          companyUuid: actor.companyUuid,
          sourceType: source.sourceType,
          sourceUuid: source.sourceUuid,
          mentionedType: t.type,
          mentionedUuid: t.uuid,
          actorType: actor.type,
          actorUuid: actor.uuid,
        });
      }
    }
    if (rows.length) await new MentionRepository(em).add(rows);
    return recorded;
  }
}
