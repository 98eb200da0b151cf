import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';

import type { DocumentType } from './domain/document-types.js';

export type { AuthoredDocumentType, DocumentType } from './domain/document-types.js';

@Entity('document')
export class DocumentEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('text') type: DocumentType;
  @Column('text') title: string;
  @Column('text', { default: '' }) content: string;
  @Column('integer', { default: 1 }) version: number;
  @Column('uuid', { nullable: true }) proposalUuid: string | null;
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
