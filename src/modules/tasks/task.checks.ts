import { NotFoundError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import type { TaskEntity } from './task.entity.js';
import type { TaskRepository } from './task.repository.js';

/** The project a task call names, scoped to the caller's company; NOT_FOUND otherwise. */
export async function requireProject(tasks: TaskRepository, companyUuid: string, projectUuid: unknown): Promise<{ uuid: string; name: string }> {
  const project = isUuid(projectUuid) ? await tasks.project(companyUuid, projectUuid) : null;
  if (!project) throw new NotFoundError('Project');
  return project;
}

/** A task of the caller's company, unlocked; NOT_FOUND otherwise. */
export async function requireTask(tasks: TaskRepository, companyUuid: string, taskUuid: string): Promise<TaskEntity> {
  const task = isUuid(taskUuid) ? await tasks.find(companyUuid, taskUuid) : null;
  if (!task) throw new NotFoundError('Task');
  return task;
}

/** Prerequisites named by uuid; any missing one (or of another company) is "Dependency task not found". */
export async function requirePrerequisites(tasks: TaskRepository, companyUuid: string, uuids: string[]): Promise<Map<string, TaskEntity>> {
  if (!uuids.length) return new Map();
  const rows = await tasks.findMany(companyUuid, uuids);
  if (rows.length !== new Set(uuids).size) throw new NotFoundError('Dependency task');
  return new Map(rows.map((t) => [t.uuid, t]));
}
