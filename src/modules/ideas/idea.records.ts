import type { EntityManager } from 'typeorm';
import { PersonResolver, type PersonRef } from '../../shared/database/person.js';
import type { AssigneeDto } from '../../shared/validation/person.dto.js';
import { listForTarget } from '../collaboration/index.js';
import type { IdeaRecordDto, IdeaSummaryDto } from './dto/idea-record.dto.js';
import type { IdeaEntity, IdeaStatus } from './idea.entity.js';
import { loadIdeaStatusView, type IdeaStatusView } from './idea-facts.queries.js';

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
  const view = await loadIdeaStatusView(em, companyUuid, ideas.map((i) => i.uuid));
  const people = await PersonResolver.load(em, ideas.flatMap(peopleOf));
  return ideas.map((i) => toSummary(i, view, people));
}

export async function ideaRecord(em: EntityManager, companyUuid: string, idea: IdeaEntity): Promise<IdeaRecord> {
  const view = await loadIdeaStatusView(em, companyUuid, [idea.uuid]);
  const [parent]: Array<{ uuid: string; title: string }> = idea.parentUuid
    ? await em.query(`SELECT uuid, title FROM idea WHERE company_uuid = $1 AND uuid = $2`, [companyUuid, idea.parentUuid])
    : [];
  const children: Array<{ uuid: string; title: string; status: IdeaStatus }> = await em.query(
    `SELECT uuid, title, status FROM idea WHERE company_uuid = $1 AND parent_uuid = $2 ORDER BY created_at ASC, uuid ASC`,
    [companyUuid, idea.uuid],
  );
  const proposals: Array<{ uuid: string; title: string; status: string }> = await em.query(
    `SELECT uuid, title, status FROM proposal
     WHERE company_uuid = $1 AND input_type = 'idea' AND input_uuids @> ARRAY[$2::uuid] ORDER BY created_at ASC, uuid ASC`,
    [companyUuid, idea.uuid],
  );
  const reports: Array<{ uuid: string; title: string; proposal_uuid: string; created_at: Date }> = proposals.length
    ? await em.query(
        `SELECT uuid, title, proposal_uuid, created_at FROM document
         WHERE company_uuid = $1 AND type = 'report' AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at DESC, uuid ASC`,
        [companyUuid, proposals.map((p) => p.uuid)],
      )
    : [];
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
