export { TaskEntity, AcceptanceCriterionEntity, TaskDependencyEntity } from './task.entity.js';
export * from './domain/task-transition.js';
export * from './domain/criteria.js';
