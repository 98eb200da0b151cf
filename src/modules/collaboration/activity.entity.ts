import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import type { EntityType } from '../../shared/event-bus/events.js';

/** The project's audit stream (docs/domain.md §2.18); owned by collaboration, written by ActivityService before commit. */
@Entity('activity')
export class ActivityEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('uuid') projectUuid: string;
  @Column('text') targetType: EntityType;
  @Column('uuid') targetUuid: string;
  @Column('text') actorType: ActorType;
  @Column('uuid') actorUuid: string;
  @Column('text') action: string;
  @Column('jsonb', { nullable: true }) value: Record<string, unknown> | null;
  @Column('uuid', { nullable: true }) sessionUuid: string | null;
  @Column('text', { nullable: true }) sessionName: string | null;
  @Column('timestamptz') createdAt: Date;
}
