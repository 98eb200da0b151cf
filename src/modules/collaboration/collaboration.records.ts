import type { ActorType } from '../../shared/auth/actor.js';
import type { ActivityEntity } from './activity.entity.js';
import type { Person, PersonResolver } from '../../shared/database/person.js';
import type { CommentEntity, ReferenceEntity } from './collaboration.entity.js';
import type { ActivityRecordDto, CommentRecordDto, ReferenceRecordDto } from './dto/collaboration-record.dto.js';

/** The record shapes of the collaboration module, defined once by their response DTOs (dto/collaboration-record.dto.ts). */
export type CommentRecord = CommentRecordDto;
export type ReferenceRecord = ReferenceRecordDto;
export type ActivityRecord = ActivityRecordDto;

const person = (people: PersonResolver, type: ActorType, uuid: string): Person => people.person({ type, uuid })!;

export function toCommentRecord(c: CommentEntity, people: PersonResolver): CommentRecord {
  return {
    uuid: c.uuid,
    targetType: c.targetType,
    targetUuid: c.targetUuid,
    content: c.content,
    author: person(people, c.authorType, c.authorUuid),
    createdAt: c.createdAt.toISOString(),
  };
}

export function toReferenceRecord(r: ReferenceEntity, people: PersonResolver): ReferenceRecord {
  return {
    uuid: r.uuid,
    targetType: r.targetType,
    targetUuid: r.targetUuid,
    type: r.type,
    url: r.url,
    title: r.title,
    notes: r.notes,
    createdBy: person(people, r.createdByType, r.createdByUuid),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function toActivityRecord(a: ActivityEntity, people: PersonResolver): ActivityRecord {
  return {
    uuid: a.uuid,
    projectUuid: a.projectUuid,
    targetType: a.targetType,
    targetUuid: a.targetUuid,
    actor: person(people, a.actorType, a.actorUuid),
    action: a.action,
    value: a.value,
    sessionUuid: a.sessionUuid,
    sessionName: a.sessionName,
    createdAt: a.createdAt.toISOString(),
  };
}
