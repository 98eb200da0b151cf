import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { recentActivities } from '../collaboration/index.js';
import { completionRate, projectDescription, projectName } from './domain/project.rules.js';
import { ProjectGroupRepository, type GroupChanges, type GroupRow } from './project-group.repository.js';
import { iso, type GroupDashboard, type GroupRecord, type GroupSummary } from './project.records.js';
import { ProjectRepository } from './project.repository.js';

const toGroupSummary = (r: GroupRow): GroupSummary => ({
  uuid: r.uuid,
  name: r.name,
  description: r.description,
  projectCount: r.project_count,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Project groups (docs/domain.md §2.6): one level, no change events. */
@Injectable()
export class ProjectGroupService {
  constructor(
    private readonly db: DataSource,
    private readonly groups: ProjectGroupRepository,
    private readonly projects: ProjectRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: { page?: number; pageSize?: number } = {}): Promise<{ groups: GroupSummary[]; ungroupedCount: number } & PageResult> {
    const p = paging(input);
    const rows = await this.groups.summaries(actor.companyUuid, p.pageSize, offsetOf(p));
    const { total, ungrouped } = await this.groups.totals(actor.companyUuid);
    return { groups: rows.map(toGroupSummary), page: p.page, pageSize: p.pageSize, total, ungroupedCount: ungrouped };
  }

  async get(actor: Actor, input: { groupUuid: string }): Promise<GroupRecord> {
    return this.record(this.groups, actor.companyUuid, input.groupUuid);
  }

  async create(actor: Actor, input: { name: string; description?: string }): Promise<GroupRecord> {
    const name = projectName(input.name);
    const description = projectDescription(input.description);
    return this.runner.run(actor, async (tx) => {
      const groups = this.groups.in(tx);
      const uuid = randomUUID();
      await groups.add({ uuid, companyUuid: actor.companyUuid, name, description });
      return this.record(groups, actor.companyUuid, uuid);
    });
  }

  async update(actor: Actor, input: { groupUuid: string; name?: string; description?: string }): Promise<GroupRecord> {
    const changes: GroupChanges = {};
    if (input.name !== undefined) changes.name = projectName(input.name);
    if (input.description !== undefined) changes.description = projectDescription(input.description);
    if (!Object.keys(changes).length) throw new ValidationError('Nothing to update');
    return this.runner.run(actor, async (tx) => {
      const groups = this.groups.in(tx);
      const group = await groups.lock(input.groupUuid, actor.companyUuid);
      const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((k) => group[k] !== changes[k]);
      if (changed) await groups.change(group.uuid, actor.companyUuid, changes);
      return this.record(groups, actor.companyUuid, group.uuid);
    });
  }

  /** Deleting a group leaves its projects ungrouped (docs/domain.md §8). */
  async delete(actor: Actor, input: { groupUuid: string }): Promise<{ uuid: string; deleted: true; ungroupedProjects: number }> {
    return this.runner.run(actor, async (tx) => {
      const groups = this.groups.in(tx);
      const group = await groups.lock(input.groupUuid, actor.companyUuid);
      const ungroupedProjects = await this.projects.in(tx).ungroup(actor.companyUuid, group.uuid);
      await groups.remove(group.uuid, actor.companyUuid);
      return { uuid: group.uuid, deleted: true as const, ungroupedProjects };
    });
  }

  /** svc_get_group_dashboard: completion over the group's tasks, open ideas, active proposals, latest 20 activities. */
  async dashboard(actor: Actor, input: { groupUuid: string }): Promise<GroupDashboard> {
    const group = await this.summary(this.groups, actor.companyUuid, input.groupUuid);
    const projects = await this.groups.projectStats(actor.companyUuid, group.uuid);
    const sum = (k: 'total' | 'completed' | 'open_ideas' | 'active_proposals'): number => projects.reduce((n, p) => n + p[k], 0);
    const totalTasks = sum('total');
    const completedTasks = sum('completed');
    return {
      group,
      stats: {
        projectCount: projects.length,
        totalTasks,
        completedTasks,
        completionRate: completionRate(completedTasks, totalTasks),
        openIdeas: sum('open_ideas'),
        activeProposals: sum('active_proposals'),
      },
      projects: projects.map((p) => ({ uuid: p.uuid, name: p.name, taskCount: p.total, completionRate: completionRate(p.completed, p.total) })),
      recentActivity: await recentActivities(this.db.manager, actor.companyUuid, projects.map((p) => p.uuid), 20),
    };
  }

  private async summary(groups: ProjectGroupRepository, companyUuid: string, groupUuid: string): Promise<GroupSummary> {
    const row = await groups.summary(companyUuid, groupUuid);
    if (!row) throw new NotFoundError('Project group');
    return toGroupSummary(row);
  }

  private async record(groups: ProjectGroupRepository, companyUuid: string, groupUuid: string): Promise<GroupRecord> {
    const group = await this.summary(groups, companyUuid, groupUuid);
    return { ...group, projects: await groups.projects(companyUuid, groupUuid) };
  }
}
