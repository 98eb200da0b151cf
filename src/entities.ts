import { ActivityEntity } from './modules/collaboration/activity.entity.js';
import { CommentEntity, MentionEntity, ReferenceEntity } from './modules/collaboration/collaboration.entity.js';
import { DocumentEntity } from './modules/documents/document.entity.js';
import { ElaborationQuestionEntity, ElaborationRoundEntity, IdeaEntity } from './modules/ideas/idea.entity.js';
import { AgentApiKeyEntity, AgentEntity, CompanyEntity, UserEntity, UserSessionEntity } from './modules/identity/identity.entity.js';
import { NotificationEntity, NotificationPreferenceEntity } from './modules/notifications/notification.entity.js';
import { ProjectEntity, ProjectGroupEntity } from './modules/projects/project.entity.js';
import { ProposalEntity } from './modules/proposals/proposal.entity.js';
import { AgentSessionEntity, SessionTaskCheckinEntity } from './modules/sessions/session.entity.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity } from './modules/tasks/task.entity.js';

/**
 * Every TypeORM entity of the service, for the data source, the CLI's demo seed and tests. Bootstrap level on
 * purpose: each module owns its entity files and exports only their types, so no other module can write its tables
 * (README "Table ownership").
 */
export const ENTITIES = [
  CompanyEntity,
  UserEntity,
  UserSessionEntity,
  AgentEntity,
  AgentApiKeyEntity,
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

export {
  AcceptanceCriterionEntity,
  ActivityEntity,
  AgentApiKeyEntity,
  AgentEntity,
  AgentSessionEntity,
  CommentEntity,
  CompanyEntity,
  DocumentEntity,
  ElaborationQuestionEntity,
  ElaborationRoundEntity,
  IdeaEntity,
  MentionEntity,
  NotificationEntity,
  NotificationPreferenceEntity,
  ProjectEntity,
  ProjectGroupEntity,
  ProposalEntity,
  ReferenceEntity,
  SessionTaskCheckinEntity,
  TaskDependencyEntity,
  TaskEntity,
  UserEntity,
  UserSessionEntity,
};
