import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import type { EntityType } from '../../shared/event-bus/events.js';

@Entity('notification')
export class NotificationEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('text') projectName: string;
  @Column('text') recipientType: ActorType;
  @Column('uuid') recipientUuid: string;
  @Column('text') entityType: EntityType;
  @Column('uuid') entityUuid: string;
  @Column('text') entityTitle: string;
  @Column('text') action: string;
  @Column('text') message: string;
  @Column('text') actorType: ActorType;
  @Column('uuid') actorUuid: string;
  @Column('text') actorName: string;
  @Column('timestamptz', { nullable: true }) readAt: Date | null;
  @Column('timestamptz', { nullable: true }) archivedAt: Date | null;
  /** Set while snoozed (docs/notifications.md §2.0); the wake-up clears it. */
  @Column('timestamptz', { nullable: true }) snoozedUntil: Date | null;
  /** The recipient's stream position of the row's latest change (deltas read `position > after`). */
  @Column('bigint', { default: 0 }) position: string;
  /** The position at which the row arrived or last woke up (read-all `upTo`). */
  @Column('bigint', { default: 0 }) arrivalPosition: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('notification_preference')
export class NotificationPreferenceEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('text') ownerType: ActorType;
  @Column('uuid') ownerUuid: string;
  @Column('boolean', { default: true }) taskAssigned: boolean;
  @Column('boolean', { default: true }) taskStatusChanged: boolean;
  @Column('boolean', { default: true }) taskVerified: boolean;
  @Column('boolean', { default: true }) taskReopened: boolean;
  @Column('boolean', { default: true }) proposalSubmitted: boolean;
  @Column('boolean', { default: true }) proposalApproved: boolean;
  @Column('boolean', { default: true }) proposalRejected: boolean;
  @Column('boolean', { default: true }) ideaClaimed: boolean;
  @Column('boolean', { default: true }) commentAdded: boolean;
  @Column('boolean', { default: true }) elaborationRequested: boolean;
  @Column('boolean', { default: true }) elaborationAnswered: boolean;
  @Column('boolean', { default: true }) mentioned: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
