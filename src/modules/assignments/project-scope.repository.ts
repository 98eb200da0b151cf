import { Repository } from '../../shared/database/repository.js';

/**
 * The project groups and projects the scoping headers name (docs/tool-conventions.md §2): the projects module's tables, read with
 * plain SQL (README "Table ownership": a read of another module's table is fine where it is faster). Every
 * statement is scoped by company.
 */
export class ProjectScopeRepository extends Repository {
  async groupExists(companyUuid: string, groupUuid: string): Promise<boolean> {
    const rows: unknown[] = await this.em.query(`SELECT 1 FROM project_group WHERE company_uuid = $1 AND uuid = $2`, [companyUuid, groupUuid]);
    return rows.length > 0;
  }

  /** The uuids of the group's projects, in uuid order. */
  async projectsOfGroup(companyUuid: string, groupUuid: string): Promise<string[]> {
    const rows: Array<{ uuid: string }> = await this.em.query(`SELECT uuid FROM project WHERE company_uuid = $1 AND group_uuid = $2 ORDER BY uuid`, [
      companyUuid,
      groupUuid,
    ]);
    return rows.map((r) => r.uuid);
  }

  /** The uuids among `projectUuids` that name projects of the company, in uuid order. */
  async projectsAmong(companyUuid: string, projectUuids: string[]): Promise<string[]> {
    if (!projectUuids.length) return [];
    const rows: Array<{ uuid: string }> = await this.em.query(`SELECT uuid FROM project WHERE company_uuid = $1 AND uuid = ANY($2::uuid[]) ORDER BY uuid`, [
      companyUuid,
      projectUuids,
    ]);
    return rows.map((r) => r.uuid);
  }
}
