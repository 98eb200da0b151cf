export { CommentEntity, ReferenceEntity, MentionEntity } from './collaboration.entity.js';
export * from './domain/reference-input.js';
