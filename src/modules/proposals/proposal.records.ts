import type { EntityManager } from 'typeorm';
import { PersonResolver, type PersonRef } from '../../shared/database/person.js';
import { listForTarget } from '../collaboration/index.js';
import type { ProposalRecordDto, ProposalSummaryDto } from './dto/proposal-record.dto.js';
import type { DocumentDraft, ProposalEntity, TaskDraft } from './proposal.entity.js';
import { charLength } from '../../shared/validation/text-rules.js';

/** Record shapes of docs/tool-conventions.md §5.9 for proposals (references render through the collaboration module). */
export type ProposalSection = 'basic' | 'documents' | 'tasks' | 'full';
export const PROPOSAL_SECTIONS: readonly ProposalSection[] = ['basic', 'documents', 'tasks', 'full'];

/** The record shapes of proposals, defined once by their response DTOs. */
export type ProposalSummary = ProposalSummaryDto;
export type ProposalRecord = ProposalRecordDto;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const creator = (p: ProposalEntity): PersonRef => ({ type: p.createdByType, uuid: p.createdByUuid });
const reviewer = (p: ProposalEntity): PersonRef => ({ type: p.reviewedByType, uuid: p.reviewedByUuid });

export function toProposalSummary(p: ProposalEntity, people: PersonResolver): ProposalSummary {
  return {
    uuid: p.uuid,
    projectUuid: p.projectUuid,
    title: p.title,
    status: p.status,
    inputType: p.inputType,
    inputUuids: [...p.inputUuids],
    documentDraftCount: p.documentDrafts.length,
    taskDraftCount: p.taskDrafts.length,
    createdBy: people.person(creator(p)),
    reviewedBy: people.person(reviewer(p)),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export async function loadProposalSummaries(em: EntityManager, rows: readonly ProposalEntity[]): Promise<ProposalSummary[]> {
  const people = await PersonResolver.load(em, rows.flatMap((p) => [creator(p), reviewer(p)]));
  return rows.map((p) => toProposalSummary(p, people));
}

const documentDraft = (d: DocumentDraft): DocumentDraft => ({ uuid: d.uuid, type: d.type, title: d.title, content: d.content });

const taskDraft = (t: TaskDraft): TaskDraft => ({
  uuid: t.uuid,
  title: t.title,
  description: t.description ?? '',
  priority: t.priority ?? null,
  storyPoints: t.storyPoints ?? null,
  acceptanceCriteriaItems: t.acceptanceCriteriaItems.map((c) => ({ description: c.description, required: c.required })),
  dependsOnDraftUuids: [...(t.dependsOnDraftUuids ?? [])],
});

/** The full record; references are read from the `reference` table, oldest first. */
export async function loadProposalRecord(em: EntityManager, p: ProposalEntity, section: ProposalSection = 'basic'): Promise<ProposalRecord> {
  const references = await listForTarget(em, p.companyUuid, 'proposal', p.uuid);
  const people = await PersonResolver.load(em, [creator(p), reviewer(p)]);
  const record: ProposalRecord = {
    ...toProposalSummary(p, people),
    description: p.description,
    submittedAt: iso(p.submittedAt),
    reviewNote: p.reviewNote,
    reviewedAt: iso(p.reviewedAt),
    references,
    section,
  };
  if (section === 'basic') {
    record.documentDraftIndex = p.documentDrafts.map((d) => ({ uuid: d.uuid, type: d.type, title: d.title, contentLength: charLength(d.content) }));
    record.taskDraftIndex = p.taskDrafts.map((t) => ({
      uuid: t.uuid,
      title: t.title,
      priority: t.priority ?? null,
      storyPoints: t.storyPoints ?? null,
      acceptanceCriteriaCount: t.acceptanceCriteriaItems.length,
      dependsOnDraftUuids: [...(t.dependsOnDraftUuids ?? [])],
    }));
  }
  if (section === 'documents' || section === 'full') record.documentDrafts = p.documentDrafts.map(documentDraft);
  if (section === 'tasks' || section === 'full') record.taskDrafts = p.taskDrafts.map(taskDraft);
  return record;
}
