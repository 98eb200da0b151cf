export { CommentEntity, ReferenceEntity, MentionEntity } from './collaboration.entity.js';
