import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { identitySql } from '../../shared/auth/identity-rule.js';
import type { Priority } from './task.entity.js';
import type { TaskStatus } from './domain/task-transition.js';

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
 * The task tracker of svc_get_my_assignments (tools.md §3): the caller's unfinished tasks under the assignee
 * identity rule, grouped by project in the order of each project's first task.
 */
@Injectable()
export class TaskTrackerService {
  constructor(private readonly db: DataSource) {}

  /** `projectScope` null = every project; an empty scope yields an empty tracker. */
  async tracker(actor: Actor, projectScope: string[] | null): Promise<TaskTracker> {
    if (projectScope !== null && projectScope.length === 0) return {};
    const mine = identitySql(actor, 't.assignee', 2);
    const params: unknown[] = [actor.companyUuid, ...mine.params];
    let scope = '';
    if (projectScope !== null) {
      params.push(projectScope);
      scope = `AND t.project_uuid = ANY($${params.length}::uuid[])`;
    }
    const rows: Array<{
      uuid: string;
      title: string;
      status: TaskStatus;
      priority: Priority;
      assigned_at: Date | null;
      project_uuid: string;
      project_name: string;
      passed: number;
      total: number;
    }> = await this.db.query(
      `SELECT t.uuid, t.title, t.status, t.priority, t.assigned_at, t.project_uuid, p.name AS project_name,
              (SELECT count(*) FROM acceptance_criterion c WHERE c.task_uuid = t.uuid AND c.status = 'passed')::int AS passed,
              (SELECT count(*) FROM acceptance_criterion c WHERE c.task_uuid = t.uuid)::int AS total
         FROM task t JOIN project p ON p.uuid = t.project_uuid
        WHERE t.company_uuid = $1 AND ${mine.sql} AND t.status NOT IN ('done', 'closed') ${scope}
        ORDER BY t.priority_rank DESC, t.assigned_at DESC NULLS LAST, t.uuid ASC`,
      params,
    );
    const tracker: TaskTracker = {};
    for (const r of rows) {
      const group = (tracker[r.project_uuid] ??= { name: r.project_name, tasks: [] });
      group.tasks.push({
        uuid: r.uuid,
        title: r.title,
        status: r.status,
        priority: r.priority,
        assignedAt: r.assigned_at ? r.assigned_at.toISOString() : null,
        acceptance: { passed: r.passed, total: r.total },
      });
    }
    return tracker;
  }
}
