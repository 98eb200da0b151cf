import { In, type FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { Repository } from '../../shared/database/repository.js';
import { ActivityEntity } from './activity.entity.js';

const NEWEST_FIRST = { createdAt: 'DESC', uuid: 'ASC' } as const;

/** The `activity` table (README "Table ownership": collaboration owns it), tenant-scoped; activities outlive their targets. */
export class ActivityRepository extends Repository {
  async add(rows: Array<QueryDeepPartialEntity<ActivityEntity>>): Promise<void> {
    await this.em.insert(ActivityEntity, rows);
  }

  /** The newest activities across the projects. */
  recent(companyUuid: string, projectUuids: string[], limit: number): Promise<ActivityEntity[]> {
    return this.em.find(ActivityEntity, { where: { companyUuid, projectUuid: In(projectUuids) }, order: NEWEST_FIRST, take: limit });
  }

  /** A page of the matching activities, newest first, and their total. */
  page(where: FindOptionsWhere<ActivityEntity>, skip: number, take: number): Promise<[ActivityEntity[], number]> {
    return this.em.findAndCount(ActivityEntity, { where, order: NEWEST_FIRST, skip, take });
  }

  /** Whether the company has the project (a plain read: the projects module builds on this one). */
  async projectExists(projectUuid: string, companyUuid: string): Promise<boolean> {
    const project: unknown[] = await this.em.query('SELECT 1 FROM project WHERE uuid = $1 AND company_uuid = $2', [projectUuid, companyUuid]);
    return project.length > 0;
  }
}
