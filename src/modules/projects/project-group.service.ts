import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { recentActivities } from '../collaboration/index.js';
import { completionRate, projectDescription, projectName } from './domain/project.rules.js';
import { ProjectEntity, ProjectGroupEntity } from './project.entity.js';
import { iso, type GroupDashboard, type GroupRecord, type GroupSummary } from './project.records.js';

interface GroupRow {
  uuid: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
  project_count: number;
}

const GROUP_SQL = `g.uuid, g.name, g.description, g.created_at, g.updated_at,
  (SELECT count(*)::int FROM project p WHERE p.company_uuid = g.company_uuid AND p.group_uuid = g.uuid) AS project_count`;

const toGroupSummary = (r: GroupRow): GroupSummary => ({
  uuid: r.uuid,
  name: r.name,
  description: r.description,
  projectCount: r.project_count,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Project groups (domain.md §2.6): one level, no change events. */
@Injectable()
export class ProjectGroupService {
  constructor(
    private readonly db: DataSource,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: { page?: number; pageSize?: number } = {}): Promise<{ groups: GroupSummary[]; ungroupedCount: number } & PageResult> {
    const p = paging(input);
    const rows: GroupRow[] = await this.db.query(
      `SELECT ${GROUP_SQL} FROM project_group g WHERE g.company_uuid = $1 ORDER BY g.created_at ASC, g.uuid ASC LIMIT $2 OFFSET $3`,
      [actor.companyUuid, p.pageSize, offsetOf(p)],
    );
    const [{ total, ungrouped }] = await this.db.query(
      `SELECT (SELECT count(*)::int FROM project_group WHERE company_uuid = $1) AS total,
              (SELECT count(*)::int FROM project WHERE company_uuid = $1 AND group_uuid IS NULL) AS ungrouped`,
      [actor.companyUuid],
    );
    return { groups: rows.map(toGroupSummary), page: p.page, pageSize: p.pageSize, total, ungroupedCount: ungrouped };
  }

  async get(actor: Actor, input: { groupUuid: string }): Promise<GroupRecord> {
    return this.record(this.db.manager, actor.companyUuid, input.groupUuid);
  }

  async create(actor: Actor, input: { name: string; description?: string }): Promise<GroupRecord> {
    const name = projectName(input.name);
    const description = projectDescription(input.description);
    return this.runner.run(actor, async (tx) => {
      const uuid = randomUUID();
      await tx.manager.insert(ProjectGroupEntity, { uuid, companyUuid: actor.companyUuid, name, description });
      return this.record(tx.manager, actor.companyUuid, uuid);
    });
  }

  async update(actor: Actor, input: { groupUuid: string; name?: string; description?: string }): Promise<GroupRecord> {
    const changes: Partial<Pick<ProjectGroupEntity, 'name' | 'description'>> = {};
    if (input.name !== undefined) changes.name = projectName(input.name);
    if (input.description !== undefined) changes.description = projectDescription(input.description);
    if (!Object.keys(changes).length) throw new ValidationError('Nothing to update');
    return this.runner.run(actor, async (tx) => {
      const group = await findInCompany(tx.manager, ProjectGroupEntity, input.groupUuid, actor.companyUuid, 'Project group', true);
      const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((k) => group[k] !== changes[k]);
      if (changed) await tx.manager.update(ProjectGroupEntity, { uuid: group.uuid, companyUuid: actor.companyUuid }, changes);
      return this.record(tx.manager, actor.companyUuid, group.uuid);
    });
  }

  /** Deleting a group leaves its projects ungrouped (domain.md §8). */
  async delete(actor: Actor, input: { groupUuid: string }): Promise<{ uuid: string; deleted: true; ungroupedProjects: number }> {
    return this.runner.run(actor, async (tx) => {
      const group = await findInCompany(tx.manager, ProjectGroupEntity, input.groupUuid, actor.companyUuid, 'Project group', true);
      const result = await tx.manager.update(ProjectEntity, { companyUuid: actor.companyUuid, groupUuid: group.uuid }, { groupUuid: null });
      await tx.manager.delete(ProjectGroupEntity, { uuid: group.uuid, companyUuid: actor.companyUuid });
      return { uuid: group.uuid, deleted: true as const, ungroupedProjects: result.affected ?? 0 };
    });
  }

  /** svc_get_group_dashboard: completion over the group's tasks, open ideas, active proposals, latest 20 activities. */
  async dashboard(actor: Actor, input: { groupUuid: string }): Promise<GroupDashboard> {
    const group = await this.summary(this.db.manager, actor.companyUuid, input.groupUuid);
    const projects: Array<{ uuid: string; name: string; total: number; completed: number; open_ideas: number; active_proposals: number }> =
      await this.db.query(
        `SELECT p.uuid, p.name,
           (SELECT count(*)::int FROM task t WHERE t.company_uuid = $1 AND t.project_uuid = p.uuid) AS total,
           (SELECT count(*)::int FROM task t WHERE t.company_uuid = $1 AND t.project_uuid = p.uuid AND t.status IN ('done', 'closed')) AS completed,
           (SELECT count(*)::int FROM idea i WHERE i.company_uuid = $1 AND i.project_uuid = p.uuid AND i.status IN ('open', 'elaborating')) AS open_ideas,
           (SELECT count(*)::int FROM proposal x WHERE x.company_uuid = $1 AND x.project_uuid = p.uuid AND x.status IN ('draft', 'pending')) AS active_proposals
         FROM project p WHERE p.company_uuid = $1 AND p.group_uuid = $2 ORDER BY p.name ASC, p.uuid ASC`,
        [actor.companyUuid, group.uuid],
      );
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

  private async summary(em: EntityManager, companyUuid: string, groupUuid: string): Promise<GroupSummary> {
    const [row]: GroupRow[] = await em.query(`SELECT ${GROUP_SQL} FROM project_group g WHERE g.company_uuid = $1 AND g.uuid = $2`, [companyUuid, groupUuid]);
    if (!row) throw new NotFoundError('Project group');
    return toGroupSummary(row);
  }

  private async record(em: EntityManager, companyUuid: string, groupUuid: string): Promise<GroupRecord> {
    const group = await this.summary(em, companyUuid, groupUuid);
    const projects: Array<{ uuid: string; name: string; description: string }> = await em.query(
      `SELECT uuid, name, description FROM project WHERE company_uuid = $1 AND group_uuid = $2 ORDER BY name ASC, uuid ASC`,
      [companyUuid, groupUuid],
    );
    return { ...group, projects };
  }
}
