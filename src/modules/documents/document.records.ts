import type { EntityManager } from 'typeorm';
import { PersonResolver } from '../../shared/database/person.js';
import type { DocumentEntity } from './document.entity.js';
import type { DocumentRecordDto, DocumentSummaryDto } from './dto/document-record.dto.js';

/** The record shapes of documents, defined once by their response DTOs (dto/document-record.dto.ts). */
export type DocumentSummary = DocumentSummaryDto;
export type DocumentRecord = DocumentRecordDto;

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
