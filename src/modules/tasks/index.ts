export type { TaskEntity, AcceptanceCriterionEntity, TaskDependencyEntity } from './task.entity.js';
export type { Priority, MarkStatus } from './task.entity.js';
export * from './domain/task-transition.js';
export * from './domain/criteria.js';
export * from './domain/dependency.rules.js';
export { TasksModule } from './tasks.module.js';
export { TaskService, type TaskListInput, type TaskList, type UpdateTaskInput } from './task.service.js';
export { TaskTrackerService, type TaskTracker, type TrackedTask } from './task-tracker.service.js';
export type { CreateTasksInput, NewTaskInput } from './task-create.steps.js';
export type { Assignee, TaskSummary, TaskRecord, TaskRecordWithHints, CriterionRecord, TaskLink, ActiveSession } from './task.records.js';
export { lockTask, moveTask, type MoveOptions } from './task-lifecycle.steps.js';
export { CriterionDto } from './dto/criterion.dto.js';
export {
  closeTasksOfRevokedProposal,
  createTasksFromProposal,
  moveTasksToProject,
  unlinkTasksFromProposal,
  type TaskDraftSource,
  type TaskOrigin,
} from './task.steps.js';
export { CallSessionDto } from './dto/task.dto.js';
export * from './domain/task-fields.js';
