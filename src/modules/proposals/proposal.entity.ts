import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import type { AuthoredDocumentType } from '../documents/index.js';
import type { Priority } from '../tasks/index.js';

import type { ProposalStatus } from './domain/proposal-statuses.js';

export type { ProposalStatus } from './domain/proposal-statuses.js';
/** A document draft becomes an authored document on approval. */
export type DocumentDraftType = AuthoredDocumentType;
export type { Priority };

export interface DocumentDraft {
  uuid: string;
  type: DocumentDraftType;
  title: string;
  content: string;
}

export interface CriterionItem {
  description: string;
  required: boolean;
}

export interface TaskDraft {
  uuid: string;
  title: string;
  description: string;
  priority: Priority | null;
  storyPoints: number | null;
  acceptanceCriteriaItems: CriterionItem[];
  dependsOnDraftUuids: string[];
}

@Entity('proposal')
export class ProposalEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('text') title: string;
  @Column('text', { default: '' }) description: string;
  @Column('text') inputType: 'idea' | 'document';
  @Column('uuid', { array: true }) inputUuids: string[];
  @Column('text', { default: 'draft' }) status: ProposalStatus;
  @Column('jsonb', { default: () => "'[]'" }) documentDrafts: DocumentDraft[];
  @Column('jsonb', { default: () => "'[]'" }) taskDrafts: TaskDraft[];
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @Column('timestamptz', { nullable: true }) submittedAt: Date | null;
  @Column('text', { nullable: true }) reviewedByType: ActorType | null;
  @Column('uuid', { nullable: true }) reviewedByUuid: string | null;
  @Column('text', { nullable: true }) reviewNote: string | null;
  @Column('timestamptz', { nullable: true }) reviewedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
