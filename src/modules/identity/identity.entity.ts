import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Permission, Preset } from '../../shared/auth/permissions.js';

@Entity('company')
export class CompanyEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('text') name: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('app_user')
export class UserEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('text') email: string;
  @Column('text') name: string;
  @Column('text', { select: true }) passwordHash: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('user_session')
export class UserSessionEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') userUuid: string;
  @Column('text') tokenHash: string;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz') lastSeenAt: Date;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

@Entity('agent')
export class AgentEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') ownerUuid: string;
  @Column('text') name: string;
  @Column('text') preset: Preset;
  @Column('text', { array: true, default: () => "'{}'" }) permissions: Permission[];
  @Column('timestamptz', { nullable: true }) lastActiveAt: Date | null;
  @Column('timestamptz', { nullable: true }) archivedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('agent_api_key')
export class AgentApiKeyEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') agentUuid: string;
  @Column('text', { nullable: true }) name: string | null;
  @Column('text') keyHash: string;
  @Column('text') keyPrefix: string;
  @Column('timestamptz', { nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastUsedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

