import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';

export type IdeaStatus = 'open' | 'elaborating' | 'elaborated';
export type ElaborationDepth = 'minimal' | 'standard' | 'comprehensive';
export type ElaborationStatus = 'pending_answers' | 'validating' | 'resolved';

@Entity('idea')
export class IdeaEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('text') title: string;
  @Column('text', { default: '' }) content: string;
  @Column('text', { default: 'open' }) status: IdeaStatus;
  @Column('boolean', { default: false }) isContainer: boolean;
  @Column('uuid', { nullable: true }) parentUuid: string | null;
  @Column('text', { nullable: true }) assigneeType: ActorType | null;
  @Column('uuid', { nullable: true }) assigneeUuid: string | null;
  @Column('timestamptz', { nullable: true }) assignedAt: Date | null;
  @Column('text', { nullable: true }) assignedByType: ActorType | null;
  @Column('uuid', { nullable: true }) assignedByUuid: string | null;
  @Column('text', { nullable: true }) elaborationDepth: ElaborationDepth | null;
  @Column('text', { nullable: true }) elaborationStatus: ElaborationStatus | null;
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

export interface QuestionOption {
  id: string;
  label: string;
  description?: string | null;
}

@Entity('elaboration_round')
export class ElaborationRoundEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') ideaUuid: string;
  @Column('integer') roundNumber: number;
  @Column('text') status: 'pending_answers' | 'answered';
  @Column('text') depth: ElaborationDepth;
  @Column('boolean', { default: false }) isAppended: boolean;
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @Column('timestamptz', { nullable: true }) answeredAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('elaboration_question')
export class ElaborationQuestionEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') roundUuid: string;
  @Column('text') questionId: string;
  @Column('text') text: string;
  @Column('text') category: string;
  @Column('jsonb') options: QuestionOption[];
  @Column('boolean', { default: true }) required: boolean;
  @Column('integer') sortOrder: number;
  @Column('text', { nullable: true }) selectedOptionId: string | null;
  @Column('text', { nullable: true }) customText: string | null;
  @Column('timestamptz', { nullable: true }) answeredAt: Date | null;
  @Column('text', { nullable: true }) answeredByType: ActorType | null;
  @Column('uuid', { nullable: true }) answeredByUuid: string | null;
}
