import { IDENTITY_ENTITIES } from './modules/identity/index.js';
import { ProjectEntity, ProjectGroupEntity } from './modules/projects/index.js';
import { ElaborationQuestionEntity, ElaborationRoundEntity, IdeaEntity } from './modules/ideas/index.js';
import { ProposalEntity } from './modules/proposals/index.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity } from './modules/tasks/index.js';
import { DocumentEntity } from './modules/documents/index.js';
import { ActivityEntity, CommentEntity, MentionEntity, ReferenceEntity } from './modules/collaboration/index.js';
import { AgentSessionEntity, SessionTaskCheckinEntity } from './modules/sessions/index.js';
import { NotificationEntity, NotificationPreferenceEntity } from './modules/notifications/index.js';

/** Every TypeORM entity of the service (bootstrap-level list; modules own their entity files). */
export const ENTITIES = [
  ...IDENTITY_ENTITIES,
  ActivityEntity,
  ProjectGroupEntity,
  ProjectEntity,
  IdeaEntity,
  ElaborationRoundEntity,
  ElaborationQuestionEntity,
  ProposalEntity,
  TaskEntity,
  AcceptanceCriterionEntity,
  TaskDependencyEntity,
  DocumentEntity,
  ReferenceEntity,
  CommentEntity,
  MentionEntity,
  AgentSessionEntity,
  SessionTaskCheckinEntity,
  NotificationEntity,
  NotificationPreferenceEntity,
];
