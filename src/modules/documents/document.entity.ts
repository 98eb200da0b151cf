import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';

export const DOCUMENT_TYPES = ['prd', 'tech_design', 'adr', 'spec', 'guide', 'report'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/** Every type but `report`: reports are written only as a proposal's completion report (svc_create_report). */
export const AUTHORED_DOCUMENT_TYPES = ['prd', 'tech_design', 'adr', 'spec', 'guide'] as const;
export type AuthoredDocumentType = (typeof AUTHORED_DOCUMENT_TYPES)[number];

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
