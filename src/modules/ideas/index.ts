export { IdeaEntity, ElaborationRoundEntity, ElaborationQuestionEntity } from './idea.entity.js';
export type { IdeaStatus, ElaborationDepth, ElaborationStatus } from './idea.entity.js';
