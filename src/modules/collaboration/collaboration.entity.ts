import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';

export type ReferenceTargetType = 'idea' | 'proposal' | 'task';
export type CommentTargetType = 'idea' | 'proposal' | 'task' | 'document';
export type ReferenceType = 'docs' | 'repo' | 'issue_pr' | 'paper_blog';

@Entity('reference')
export class ReferenceEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('text') targetType: ReferenceTargetType;
  @Column('uuid') targetUuid: string;
  @Column('text') type: ReferenceType;
  @Column('text') url: string;
  @Column('text') title: string;
  @Column('text', { nullable: true }) notes: string | null;
  @Column('text') createdByType: ActorType;
  @Column('uuid') createdByUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('comment')
export class CommentEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('text') targetType: CommentTargetType;
  @Column('uuid') targetUuid: string;
  @Column('text') content: string;
  @Column('text') authorType: ActorType;
  @Column('uuid') authorUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('mention')
export class MentionEntity {
  @PrimaryColumn('uuid') uuid: string;
  @Column('uuid') companyUuid: string;
  @Column('text') sourceType: 'comment' | 'task' | 'idea';
  @Column('uuid') sourceUuid: string;
  @Column('text') mentionedType: ActorType;
  @Column('uuid') mentionedUuid: string;
  @Column('text') actorType: ActorType;
  @Column('uuid') actorUuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
