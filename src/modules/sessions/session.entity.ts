import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const SESSION_STATUSES = ['active', 'closed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

@Entity('agent_session')
export class AgentSessionEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') agentUuid: string;
  @Column('text') name: string;
  @Column('text', { default: '' }) description: string;
  @Column('text', { default: 'active' }) status: SessionStatus;
  @Column('timestamptz') lastActiveAt: Date;
  @Column('timestamptz', { nullable: true }) closedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('session_task_checkin')
export class SessionTaskCheckinEntity {
  @PrimaryColumn('uuid') sessionUuid: string;
  @PrimaryColumn('uuid') taskUuid: string;
  @Column('timestamptz') checkinAt: Date;
  @Column('timestamptz', { nullable: true }) checkoutAt: Date | null;
}
