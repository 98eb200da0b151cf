import type { EntityManager } from 'typeorm';
import { PersonResolver, type PersonRef } from '../../shared/database/person.js';
import type { AssigneeDto } from '../../shared/validation/person.dto.js';
import { listForTarget } from '../collaboration/index.js';
import type { IdeaRecordDto, IdeaSummaryDto } from './dto/idea-record.dto.js';
import type { IdeaEntity } from './idea.entity.js';
import { loadIdeaStatusView, type IdeaStatusView } from './idea-facts.queries.js';
import { IdeaRepository } from './idea.repository.js';

/** The record shapes of ideas, defined once by their response DTOs (dto/idea-record.dto.ts). */
export type Assignee = AssigneeDto;
export type IdeaSummary = IdeaSummaryDto;
export type IdeaRecord = IdeaRecordDto;

export const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
export const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

const peopleOf = (idea: IdeaEntity): PersonRef[] => [
  { type: idea.assigneeType, uuid: idea.assigneeUuid },
  { type: idea.assignedByType, uuid: idea.assignedByUuid },
  { type: idea.createdByType, uuid: idea.createdByUuid },
];

function toSummary(idea: IdeaEntity, view: IdeaStatusView, people: PersonResolver): IdeaSummary {
  const assignee = people.person({ type: idea.assigneeType, uuid: idea.assigneeUuid });
  return {
    uuid: idea.uuid,
    projectUuid: idea.projectUuid,
    title: idea.title,
    status: idea.status,
    derivedStatus: view.derived.get(idea.uuid) ?? 'todo',
    isContainer: idea.isContainer,
    parentUuid: idea.parentUuid,
    assignee: assignee
      ? { ...assignee, assignedAt: isoOrNull(idea.assignedAt), assignedBy: people.person({ type: idea.assignedByType, uuid: idea.assignedByUuid }) }
      : null,
    elaborationStatus: idea.elaborationStatus,
    childCount: view.childCount(idea.uuid),
    createdBy: people.person({ type: idea.createdByType, uuid: idea.createdByUuid }),
    createdAt: iso(idea.createdAt),
    updatedAt: iso(idea.updatedAt),
  };
}

/** IdeaSummary for each idea, in the given order, with two queries for status facts and people. */
export async function ideaSummaries(em: EntityManager, companyUuid: string, ideas: IdeaEntity[]): Promise<IdeaSummary[]> {
  const view = await loadIdeaStatusView(new IdeaRepository(em), companyUuid, ideas.map((i) => i.uuid));
  const people = await PersonResolver.load(em, ideas.flatMap(peopleOf));
  return ideas.map((i) => toSummary(i, view, people));
}

export async function ideaRecord(em: EntityManager, companyUuid: string, idea: IdeaEntity): Promise<IdeaRecord> {
  const ideas = new IdeaRepository(em);
  const view = await loadIdeaStatusView(ideas, companyUuid, [idea.uuid]);
  const parent = idea.parentUuid ? await ideas.parent(companyUuid, idea.parentUuid) : undefined;
  const children = await ideas.children(companyUuid, idea.uuid);
  const proposals = await ideas.proposals(companyUuid, idea.uuid);
  const reports = proposals.length ? await ideas.reports(companyUuid, proposals.map((p) => p.uuid)) : [];
  const references = await listForTarget(em, companyUuid, 'idea', idea.uuid);
  const people = await PersonResolver.load(em, peopleOf(idea));
  return {
    ...toSummary(idea, view, people),
    content: idea.content,
    elaborationDepth: idea.elaborationDepth,
    parent: parent ? { uuid: parent.uuid, title: parent.title } : null,
    children: children.map((c) => ({ uuid: c.uuid, title: c.title, status: c.status, derivedStatus: view.derived.get(c.uuid) ?? 'todo' })),
    proposals,
    reports: reports.map((r) => ({ uuid: r.uuid, title: r.title, proposalUuid: r.proposal_uuid, createdAt: iso(r.created_at) })),
    references,
  };
}
