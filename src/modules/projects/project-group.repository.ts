import { findInCompany } from '../../shared/database/tenant.js';
import { Repository } from '../../shared/database/repository.js';
import { ProjectGroupEntity } from './project.entity.js';

export interface GroupRow {
  uuid: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
  project_count: number;
}

export interface GroupProjectStats {
  uuid: string;
  name: string;
  total: number;
  completed: number;
  open_ideas: number;
  active_proposals: number;
}

const GROUP_SQL = `g.uuid, g.name, g.description, g.created_at, g.updated_at,
  (SELECT count(*)::int FROM project p WHERE p.company_uuid = g.company_uuid AND p.group_uuid = g.uuid) AS project_count`;

export type GroupChanges = Partial<Pick<ProjectGroupEntity, 'name' | 'description'>>;

/** The `project_group` table (README "Table ownership": projects own it), tenant-scoped in every statement. */
export class ProjectGroupRepository extends Repository {
  get(uuid: string, companyUuid: string): Promise<ProjectGroupEntity> {
    return findInCompany(this.em, ProjectGroupEntity, uuid, companyUuid, 'Project group');
  }

  /** The group row, locked FOR UPDATE for the mutation's checks. */
  lock(uuid: string, companyUuid: string): Promise<ProjectGroupEntity> {
    return findInCompany(this.em, ProjectGroupEntity, uuid, companyUuid, 'Project group', true);
  }

  /** A page of groups, oldest first, with their project counts. */
  summaries(companyUuid: string, limit: number, offset: number): Promise<GroupRow[]> {
    return this.em.query(`SELECT ${GROUP_SQL} FROM project_group g WHERE g.company_uuid = $1 ORDER BY g.created_at ASC, g.uuid ASC LIMIT $2 OFFSET $3`, [
      companyUuid,
      limit,
      offset,
    ]);
  }

  /** The company's group count and its count of projects in no group. */
  async totals(companyUuid: string): Promise<{ total: number; ungrouped: number }> {
    const [{ total, ungrouped }]: Array<{ total: number; ungrouped: number }> = await this.em.query(
      `SELECT (SELECT count(*)::int FROM project_group WHERE company_uuid = $1) AS total,
              (SELECT count(*)::int FROM project WHERE company_uuid = $1 AND group_uuid IS NULL) AS ungrouped`,
      [companyUuid],
    );
    return { total, ungrouped };
  }

  /** One group with its project count; undefined when the company has no such group. */
  async summary(companyUuid: string, groupUuid: string): Promise<GroupRow | undefined> {
    const [row]: GroupRow[] = await this.em.query(`SELECT ${GROUP_SQL} FROM project_group g WHERE g.company_uuid = $1 AND g.uuid = $2`, [companyUuid, groupUuid]);
    return row;
  }

  /** The group's projects by name. */
  projects(companyUuid: string, groupUuid: string): Promise<Array<{ uuid: string; name: string; description: string }>> {
    return this.em.query(`SELECT uuid, name, description FROM project WHERE company_uuid = $1 AND group_uuid = $2 ORDER BY name ASC, uuid ASC`, [
      companyUuid,
      groupUuid,
    ]);
  }

  /** The dashboard's figures per project of the group (plain reads of the tasks', ideas' and proposals' tables). */
  projectStats(companyUuid: string, groupUuid: string): Promise<GroupProjectStats[]> {
    return this.em.query(
      `SELECT p.uuid, p.name,
         (SELECT count(*)::int FROM task t WHERE t.company_uuid = $1 AND t.project_uuid = p.uuid) AS total,
         (SELECT count(*)::int FROM task t WHERE t.company_uuid = $1 AND t.project_uuid = p.uuid AND t.status IN ('done', 'closed')) AS completed,
         (SELECT count(*)::int FROM idea i WHERE i.company_uuid = $1 AND i.project_uuid = p.uuid AND i.status IN ('open', 'elaborating')) AS open_ideas,
         (SELECT count(*)::int FROM proposal x WHERE x.company_uuid = $1 AND x.project_uuid = p.uuid AND x.status IN ('draft', 'pending')) AS active_proposals
       FROM project p WHERE p.company_uuid = $1 AND p.group_uuid = $2 ORDER BY p.name ASC, p.uuid ASC`,
      [companyUuid, groupUuid],
    );
  }

  async add(row: Pick<ProjectGroupEntity, 'uuid' | 'companyUuid' | 'name' | 'description'>): Promise<void> {
    await this.em.insert(ProjectGroupEntity, row);
  }

  async change(uuid: string, companyUuid: string, changes: GroupChanges): Promise<void> {
    await this.em.update(ProjectGroupEntity, { uuid, companyUuid }, changes);
  }

  async remove(uuid: string, companyUuid: string): Promise<void> {
    await this.em.delete(ProjectGroupEntity, { uuid, companyUuid });
  }
}
