import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { TASK_STATUSES, type TaskStatus } from '../tasks/index.js';
import { projectDescription, projectName } from './domain/project.rules.js';
import { ProjectGroupRepository } from './project-group.repository.js';
import { toProjectSummary, type ProjectRecord, type ProjectSummary } from './project.records.js';
import { ProjectRepository, type ProjectChanges } from './project.repository.js';

export interface ProjectUpdate {
  projectUuid: string;
  name?: string;
  description?: string;
  /** null takes the project out of its group (svc_admin_move_project_to_group). */
  groupUuid?: string | null;
}

/** Projects (docs/domain.md §2.7). Projects publish no change events and write no activities (docs/platform.md §6.1). */
@Injectable()
export class ProjectService {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly groups: ProjectGroupRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: { page?: number; pageSize?: number } = {}): Promise<{ projects: ProjectSummary[] } & PageResult> {
    const p = paging(input);
    const rows = await this.projects.summaries(actor.companyUuid, p.pageSize, offsetOf(p));
    const total = await this.projects.total(actor.companyUuid);
    return { projects: rows.map(toProjectSummary), page: p.page, pageSize: p.pageSize, total };
  }

  async get(actor: Actor, input: { projectUuid: string }): Promise<ProjectRecord> {
    return this.record(this.projects, actor.companyUuid, input.projectUuid);
  }

  async create(actor: Actor, input: { name: string; description?: string; groupUuid?: string | null }): Promise<ProjectRecord> {
    const name = projectName(input.name);
    const description = projectDescription(input.description);
    return this.runner.run(actor, async (tx) => {
      if (input.groupUuid) await this.groups.in(tx).get(input.groupUuid, actor.companyUuid);
      const uuid = randomUUID();
      const projects = this.projects.in(tx);
      await projects.add({ uuid, companyUuid: actor.companyUuid, groupUuid: input.groupUuid ?? null, name, description });
      return this.record(projects, actor.companyUuid, uuid);
    });
  }

  /** REST PATCH and svc_admin_move_project_to_group: name, description and group, at least one. */
  async update(actor: Actor, input: ProjectUpdate): Promise<ProjectRecord> {
    const changes: ProjectChanges = {};
    if (input.name !== undefined) changes.name = projectName(input.name);
    if (input.description !== undefined) changes.description = projectDescription(input.description);
    if (input.groupUuid !== undefined) changes.groupUuid = input.groupUuid;
    if (!Object.keys(changes).length) throw new ValidationError('Nothing to update');
    return this.runner.run(actor, async (tx) => {
      const projects = this.projects.in(tx);
      const project = await projects.lock(input.projectUuid, actor.companyUuid);
      if (changes.groupUuid) await this.groups.in(tx).get(changes.groupUuid, actor.companyUuid);
      const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((k) => project[k] !== changes[k]);
      if (changed) await projects.change(project.uuid, actor.companyUuid, changes);
      return this.record(projects, actor.companyUuid, project.uuid);
    });
  }

  /** REST only: a project can only be deleted while it holds no ideas, proposals, documents or tasks. */
  async delete(actor: Actor, input: { projectUuid: string }): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const projects = this.projects.in(tx);
      const project = await projects.lock(input.projectUuid, actor.companyUuid);
      if (await projects.inUse(actor.companyUuid, project.uuid)) throw new ConflictError('Project is not empty');
      await projects.remove(project.uuid, actor.companyUuid);
      return { uuid: project.uuid, deleted: true as const };
    });
  }

  private async record(projects: ProjectRepository, companyUuid: string, projectUuid: string): Promise<ProjectRecord> {
    const row = await projects.summaryWithGroup(companyUuid, projectUuid);
    if (!row) throw new NotFoundError('Project');
    const statusRows = await projects.taskStatusCounts(companyUuid, projectUuid);
    const taskStatusCounts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const r of statusRows) taskStatusCounts[r.status] = r.n;
    return {
      ...toProjectSummary(row),
      group: row.group_uuid && row.group_name !== null ? { uuid: row.group_uuid, name: row.group_name } : null,
      taskStatusCounts,
    };
  }
}
