import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import type { Priority } from './task.entity.js';
import type { TaskStatus } from './domain/task-transition.js';
import { TaskReadRepository } from './task-read.repository.js';

export interface TrackedTask {
  uuid: string;
  title: string;
  status: TaskStatus;
  priority: Priority;
  assignedAt: string | null;
  acceptance: { passed: number; total: number };
}

export type TaskTracker = Record<string, { name: string; tasks: TrackedTask[] }>;

/**
 * The task tracker of svc_get_my_assignments (docs/tool-conventions.md §3): the caller's unfinished tasks under the assignee
 * identity rule, grouped by project in the order of each project's first task.
 */
@Injectable()
export class TaskTrackerService {
  constructor(private readonly reads: TaskReadRepository) {}

  /** `projectScope` null = every project; an empty scope yields an empty tracker. */
  async tracker(actor: Actor, projectScope: string[] | null): Promise<TaskTracker> {
    if (projectScope !== null && projectScope.length === 0) return {};
    const rows = await this.reads.tracked(actor, projectScope);
    const tracker: TaskTracker = {};
    for (const r of rows) {
      const group = (tracker[r.projectUuid] ??= { name: r.projectName, tasks: [] });
      group.tasks.push({
        uuid: r.uuid,
        title: r.title,
        status: r.status,
        priority: r.priority,
        assignedAt: r.assignedAt ? r.assignedAt.toISOString() : null,
        acceptance: r.acceptance,
      });
    }
    return tracker;
  }
}
