import type { ActorType } from '../../shared/auth/actor.js';
import type { PersonRef, PersonResolver } from '../../shared/database/person.js';
import type { AssigneeDto } from '../../shared/validation/person.dto.js';
import type { ActiveSessionDto, CriterionRecordDto, TaskLinkDto, TaskRecordDto, TaskRecordWithHintsDto, TaskSummaryDto } from './dto/task-record.dto.js';
import type { AcceptanceCriterionEntity, TaskEntity } from './task.entity.js';

/** The record shapes of the tasks module, defined once by their response DTOs (dto/task-record.dto.ts). */
export type Assignee = AssigneeDto;
export type TaskSummary = TaskSummaryDto;
export type CriterionRecord = CriterionRecordDto;
export type TaskLink = TaskLinkDto;
export type ActiveSession = ActiveSessionDto;
export type TaskRecord = TaskRecordDto;

/** Claim and assign results: the record plus `hints` when there is something to say. */
export type TaskRecordWithHints = TaskRecordWithHintsDto;

/** What a criterion record is made of: the row without its task and bookkeeping columns. */
export type CriterionFields = Omit<AcceptanceCriterionEntity, 'taskUuid' | 'createdAt' | 'updatedAt'>;

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const ref = (type: ActorType | null, uuid: string | null): PersonRef => ({ type, uuid });

/** The people a task row names (for PersonResolver.load). */
export function taskPeople(t: TaskEntity): PersonRef[] {
  return [ref(t.assigneeType, t.assigneeUuid), ref(t.assignedByType, t.assignedByUuid), ref(t.createdByType, t.createdByUuid)];
}

export function toAssignee(t: Pick<TaskEntity, 'assigneeType' | 'assigneeUuid' | 'assignedAt' | 'assignedByType' | 'assignedByUuid'>, people: PersonResolver): Assignee | null {
  const who = people.person(ref(t.assigneeType, t.assigneeUuid));
  if (!who) return null;
  return { ...who, assignedAt: iso(t.assignedAt), assignedBy: people.person(ref(t.assignedByType, t.assignedByUuid)) };
}

export function toTaskSummary(t: TaskEntity, acceptance: { passed: number; total: number }, people: PersonResolver): TaskSummary {
  return {
    uuid: t.uuid,
    projectUuid: t.projectUuid,
    proposalUuid: t.proposalUuid,
    title: t.title,
    status: t.status,
    priority: t.priority,
    storyPoints: t.storyPoints,
    assignee: toAssignee(t, people),
    acceptance,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

export function toCriterionRecord(c: CriterionFields, people: PersonResolver): CriterionRecord {
  return {
    uuid: c.uuid,
    description: c.description,
    required: c.required,
    sortOrder: c.sortOrder,
    devStatus: c.devStatus,
    devEvidence: c.devEvidence,
    devMarkedBy: people.person(ref(c.devMarkedByType, c.devMarkedByUuid)),
    devMarkedAt: iso(c.devMarkedAt),
    status: c.status,
    evidence: c.evidence,
    markedBy: people.person(ref(c.markedByType, c.markedByUuid)),
    markedAt: iso(c.markedAt),
  };
}
