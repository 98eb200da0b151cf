import { IDENTITY_ENTITIES } from './modules/identity/index.js';
import { ActivityEntity } from './shared/database/activity.entity.js';
import { ProjectEntity, ProjectGroupEntity } from './modules/projects/project.entity.js';
import { ElaborationQuestionEntity, ElaborationRoundEntity, IdeaEntity } from './modules/ideas/idea.entity.js';
import { ProposalEntity } from './modules/proposals/proposal.entity.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity } from './modules/tasks/task.entity.js';
import { DocumentEntity } from './modules/documents/document.entity.js';
import { CommentEntity, MentionEntity, ReferenceEntity } from './modules/collaboration/collaboration.entity.js';
import { AgentSessionEntity, SessionTaskCheckinEntity } from './modules/sessions/session.entity.js';
import { NotificationEntity, NotificationPreferenceEntity } from './modules/notifications/notification.entity.js';

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
