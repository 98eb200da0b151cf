import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import type { MarkStatus, Priority } from './domain/task-fields.js';
import type { TaskStatus } from './domain/task-transition.js';

export type { MarkStatus, Priority };

const numeric = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

@Entity('task')
export class TaskEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('uuid', { nullable: true }) proposalUuid: string | null;
  @Column('text') title: string;
  @Column('text', { default: '' }) description: string;
  @Column('text', { default: 'open' }) status: TaskStatus;
  @Column('text', { default: 'medium' }) priority: Priority;
  // The table also has a generated `priority_rank` (high 3 > medium 2 > low 1) for ordering in SQL.
  @Column('numeric', { nullable: true, transformer: numeric }) storyPoints: number | null;
  @Column('text', { nullable: true }) assigneeType: ActorType | null;
  @Column('uuid', { nullable: true }) assigneeUuid: string | null;
  @Column('timestamptz', { nullable: true }) assignedAt: Date | null;
  @Column('text', { nullable: true }) assignedByType: ActorType | null;
  @Column('uuid', { nullable: true }) assignedByUuid: string | null;
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('acceptance_criterion')
export class AcceptanceCriterionEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') taskUuid: string;
  @Column('text') description: string;
  @Column('boolean', { default: true }) required: boolean;
  @Column('integer') sortOrder: number;
  @Column('text', { default: 'pending' }) devStatus: MarkStatus;
  @Column('text', { nullable: true }) devEvidence: string | null;
  @Column('text', { nullable: true }) devMarkedByType: ActorType | null;
  @Column('uuid', { nullable: true }) devMarkedByUuid: string | null;
  @Column('timestamptz', { nullable: true }) devMarkedAt: Date | null;
  @Column('text', { default: 'pending' }) status: MarkStatus;
  @Column('text', { nullable: true }) evidence: string | null;
  @Column('text', { nullable: true }) markedByType: ActorType | null;
  @Column('uuid', { nullable: true }) markedByUuid: string | null;
  @Column('timestamptz', { nullable: true }) markedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('task_dependency')
export class TaskDependencyEntity {
  @PrimaryColumn('uuid') taskUuid: string;
  @PrimaryColumn('uuid') dependsOnUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
