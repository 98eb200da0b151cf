import type { EntityManager } from 'typeorm';
import { PersonResolver, type Person } from '../../shared/database/person.js';
import type { DocumentEntity } from './document.entity.js';

/** Record shapes of tools.md §5.9 for documents. */
export interface DocumentSummary {
  uuid: string;
  projectUuid: string;
  type: string;
  title: string;
  version: number;
  proposalUuid: string | null;
  createdBy: Person | null;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentRecord extends DocumentSummary {
  content: string;
}

function summary(d: DocumentEntity, people: PersonResolver): DocumentSummary {
  return {
    uuid: d.uuid,
    projectUuid: d.projectUuid,
    type: d.type,
    title: d.title,
    version: d.version,
    proposalUuid: d.proposalUuid,
    createdBy: people.person({ type: d.createdByType, uuid: d.createdByUuid }),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

const creators = (rows: readonly DocumentEntity[]) => rows.map((d) => ({ type: d.createdByType, uuid: d.createdByUuid }));

export async function loadDocumentSummaries(em: EntityManager, rows: readonly DocumentEntity[]): Promise<DocumentSummary[]> {
  const people = await PersonResolver.load(em, creators(rows));
  return rows.map((d) => summary(d, people));
}

export async function loadDocumentRecord(em: EntityManager, d: DocumentEntity): Promise<DocumentRecord> {
  const people = await PersonResolver.load(em, creators([d]));
  return { ...summary(d, people), content: d.content };
}
