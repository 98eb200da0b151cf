import { findInCompany } from '../../shared/database/tenant.js';
import { Repository } from '../../shared/database/repository.js';
import type { TaskStatus } from '../tasks/index.js';
import { ProjectEntity } from './project.entity.js';
import type { ProjectSummaryRow } from './project.records.js';

/** SQL select list of ProjectSummary columns plus the four counts, for a `project p` row. */
const PROJECT_SUMMARY_SQL = `
  p.uuid, p.name, p.description, p.group_uuid, p.created_at, p.updated_at,
  (SELECT count(*)::int FROM idea x WHERE x.company_uuid = p.company_uuid AND x.project_uuid = p.uuid) AS idea_count,
  (SELECT count(*)::int FROM proposal x WHERE x.company_uuid = p.company_uuid AND x.project_uuid = p.uuid) AS proposal_count,
  (SELECT count(*)::int FROM document x WHERE x.company_uuid = p.company_uuid AND x.project_uuid = p.uuid) AS document_count,
  (SELECT count(*)::int FROM task x WHERE x.company_uuid = p.company_uuid AND x.project_uuid = p.uuid) AS task_count`;

export type ProjectChanges = Partial<Pick<ProjectEntity, 'name' | 'description' | 'groupUuid'>>;

/**
 * The `project` table (README "Table ownership": projects own it), tenant-scoped in every statement. The counts of a
 * project's ideas, proposals, documents and tasks are plain reads of their owners' tables.
 */
export class ProjectRepository extends Repository {
  /** The company's project; another company's is "<displayName> not found". */
  get(uuid: string, companyUuid: string, displayName = 'Project'): Promise<ProjectEntity> {
    return findInCompany(this.em, ProjectEntity, uuid, companyUuid, displayName);
  }

  /** The project row, locked FOR UPDATE for the mutation's checks. */
  lock(uuid: string, companyUuid: string): Promise<ProjectEntity> {
    return findInCompany(this.em, ProjectEntity, uuid, companyUuid, 'Project', true);
  }

  /** A page of summaries, most recently updated first. */
  summaries(companyUuid: string, limit: number, offset: number): Promise<ProjectSummaryRow[]> {
    return this.em.query(
      `SELECT ${PROJECT_SUMMARY_SQL} FROM project p WHERE p.company_uuid = $1
       ORDER BY p.updated_at DESC, p.uuid ASC LIMIT $2 OFFSET $3`,
      [companyUuid, limit, offset],
    );
  }

  async total(companyUuid: string): Promise<number> {
    const [{ total }]: Array<{ total: number }> = await this.em.query(`SELECT count(*)::int AS total FROM project WHERE company_uuid = $1`, [companyUuid]);
    return total;
  }

  /** One summary with its group's name; undefined when the company has no such project. */
  async summaryWithGroup(companyUuid: string, projectUuid: string): Promise<(ProjectSummaryRow & { group_name: string | null }) | undefined> {
    const [row]: Array<ProjectSummaryRow & { group_name: string | null }> = await this.em.query(
      `SELECT ${PROJECT_SUMMARY_SQL}, g.name AS group_name
       FROM project p LEFT JOIN project_group g ON g.uuid = p.group_uuid AND g.company_uuid = p.company_uuid
       WHERE p.company_uuid = $1 AND p.uuid = $2`,
      [companyUuid, projectUuid],
    );
    return row;
  }

  /** The project's task count per status (statuses without tasks are absent). */
  taskStatusCounts(companyUuid: string, projectUuid: string): Promise<Array<{ status: TaskStatus; n: number }>> {
    return this.em.query(`SELECT status, count(*)::int AS n FROM task WHERE company_uuid = $1 AND project_uuid = $2 GROUP BY status`, [companyUuid, projectUuid]);
  }

  async add(row: Pick<ProjectEntity, 'uuid' | 'companyUuid' | 'groupUuid' | 'name' | 'description'>): Promise<void> {
    await this.em.insert(ProjectEntity, row);
  }

  async change(uuid: string, companyUuid: string, changes: ProjectChanges): Promise<void> {
    await this.em.update(ProjectEntity, { uuid, companyUuid }, changes);
  }

  /** Whether the project holds any idea, proposal, document or task. */
  async inUse(companyUuid: string, projectUuid: string): Promise<boolean> {
    const [{ used }]: Array<{ used: boolean }> = await this.em.query(
      `SELECT (EXISTS (SELECT 1 FROM idea WHERE company_uuid = $1 AND project_uuid = $2)
            OR EXISTS (SELECT 1 FROM proposal WHERE company_uuid = $1 AND project_uuid = $2)
            OR EXISTS (SELECT 1 FROM document WHERE company_uuid = $1 AND project_uuid = $2)
            OR EXISTS (SELECT 1 FROM task WHERE company_uuid = $1 AND project_uuid = $2)) AS used`,
      [companyUuid, projectUuid],
    );
    return used;
  }

  async remove(uuid: string, companyUuid: string): Promise<void> {
    await this.em.delete(ProjectEntity, { uuid, companyUuid });
  }

  /** Takes every project of the group out of it; returns how many. */
  async ungroup(companyUuid: string, groupUuid: string): Promise<number> {
    const result = await this.em.update(ProjectEntity, { companyUuid, groupUuid }, { groupUuid: null });
    return result.affected ?? 0;
  }
}
