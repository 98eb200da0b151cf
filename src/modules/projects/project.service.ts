import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { TASK_STATUSES, type TaskStatus } from '../tasks/index.js';
import { projectDescription, projectName } from './domain/project.rules.js';
import { ProjectEntity, ProjectGroupEntity } from './project.entity.js';
import { PROJECT_SUMMARY_SQL, toProjectSummary, type ProjectRecord, type ProjectSummary, type ProjectSummaryRow } from './project.records.js';

export interface ProjectUpdate {
  projectUuid: string;
  name?: string;
  description?: string;
  /** null takes the project out of its group (svc_admin_move_project_to_group). */
  groupUuid?: string | null;
}

/** Projects (domain.md §2.7). Projects publish no change events and write no activities (platform.md §6.1). */
@Injectable()
export class ProjectService {
  constructor(
    private readonly db: DataSource,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: { page?: number; pageSize?: number } = {}): Promise<{ projects: ProjectSummary[] } & PageResult> {
    const p = paging(input);
    const rows: ProjectSummaryRow[] = await this.db.query(
      `SELECT ${PROJECT_SUMMARY_SQL} FROM project p WHERE p.company_uuid = $1
       ORDER BY p.updated_at DESC, p.uuid ASC LIMIT $2 OFFSET $3`,
      [actor.companyUuid, p.pageSize, offsetOf(p)],
    );
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM project WHERE company_uuid = $1`, [actor.companyUuid]);
    return { projects: rows.map(toProjectSummary), page: p.page, pageSize: p.pageSize, total };
  }

  async get(actor: Actor, input: { projectUuid: string }): Promise<ProjectRecord> {
    return this.record(this.db.manager, actor.companyUuid, input.projectUuid);
  }

  async create(actor: Actor, input: { name: string; description?: string; groupUuid?: string | null }): Promise<ProjectRecord> {
    const name = projectName(input.name);
    const description = projectDescription(input.description);
    return this.runner.run(actor, async (tx) => {
      if (input.groupUuid) await findInCompany(tx.manager, ProjectGroupEntity, input.groupUuid, actor.companyUuid, 'Project group');
      const uuid = randomUUID();
      await tx.manager.insert(ProjectEntity, { uuid, companyUuid: actor.companyUuid, groupUuid: input.groupUuid ?? null, name, description });
      return this.record(tx.manager, actor.companyUuid, uuid);
    });
  }

  /** REST PATCH and svc_admin_move_project_to_group: name, description and group, at least one. */
  async update(actor: Actor, input: ProjectUpdate): Promise<ProjectRecord> {
    const changes: Partial<Pick<ProjectEntity, 'name' | 'description' | 'groupUuid'>> = {};
    if (input.name !== undefined) changes.name = projectName(input.name);
    if (input.description !== undefined) changes.description = projectDescription(input.description);
    if (input.groupUuid !== undefined) changes.groupUuid = input.groupUuid;
    if (!Object.keys(changes).length) throw new ValidationError('Nothing to update');
    return this.runner.run(actor, async (tx) => {
      const project = await findInCompany(tx.manager, ProjectEntity, input.projectUuid, actor.companyUuid, 'Project', true);
      if (changes.groupUuid) await findInCompany(tx.manager, ProjectGroupEntity, changes.groupUuid, actor.companyUuid, 'Project group');
      const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((k) => project[k] !== changes[k]);
      if (changed) await tx.manager.update(ProjectEntity, { uuid: project.uuid, companyUuid: actor.companyUuid }, changes);
      return this.record(tx.manager, actor.companyUuid, project.uuid);
    });
  }

  /** REST only: a project can only be deleted while it holds no ideas, proposals, documents or tasks. */
  async delete(actor: Actor, input: { projectUuid: string }): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const project = await findInCompany(tx.manager, ProjectEntity, input.projectUuid, actor.companyUuid, 'Project', true);
      const [{ used }] = await tx.manager.query(
        `SELECT (EXISTS (SELECT 1 FROM idea WHERE company_uuid = $1 AND project_uuid = $2)
              OR EXISTS (SELECT 1 FROM proposal WHERE company_uuid = $1 AND project_uuid = $2)
              OR EXISTS (SELECT 1 FROM document WHERE company_uuid = $1 AND project_uuid = $2)
              OR EXISTS (SELECT 1 FROM task WHERE company_uuid = $1 AND project_uuid = $2)) AS used`,
        [actor.companyUuid, project.uuid],
      );
      if (used) throw new ConflictError('Project is not empty');
      await tx.manager.delete(ProjectEntity, { uuid: project.uuid, companyUuid: actor.companyUuid });
      return { uuid: project.uuid, deleted: true as const };
    });
  }

  private async record(em: EntityManager, companyUuid: string, projectUuid: string): Promise<ProjectRecord> {
    const [row]: Array<ProjectSummaryRow & { group_name: string | null }> = await em.query(
      `SELECT ${PROJECT_SUMMARY_SQL}, g.name AS group_name
       FROM project p LEFT JOIN project_group g ON g.uuid = p.group_uuid AND g.company_uuid = p.company_uuid
       WHERE p.company_uuid = $1 AND p.uuid = $2`,
      [companyUuid, projectUuid],
    );
    if (!row) throw new NotFoundError('Project');
    const statusRows: Array<{ status: TaskStatus; n: number }> = await em.query(
      `SELECT status, count(*)::int AS n FROM task WHERE company_uuid = $1 AND project_uuid = $2 GROUP BY status`,
      [companyUuid, projectUuid],
    );
    const taskStatusCounts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const r of statusRows) taskStatusCounts[r.status] = r.n;
    return {
      ...toProjectSummary(row),
      group: row.group_uuid && row.group_name !== null ? { uuid: row.group_uuid, name: row.group_name } : null,
      taskStatusCounts,
    };
  }
}
