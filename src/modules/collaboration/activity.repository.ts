import { In, type FindOptionsWhere } from 'typeorm';
import { preparedQuery, type PreparedStatement } from '../../shared/database/prepared.js';
import { Repository } from '../../shared/database/repository.js';
import { ActivityEntity } from './activity.entity.js';

const NEWEST_FIRST = { createdAt: 'DESC', uuid: 'ASC' } as const;

/** A new activity row: every column. */
export type NewActivityRow = Pick<
  ActivityEntity,
  'uuid' | 'companyUuid' | 'projectUuid' | 'targetType' | 'targetUuid' | 'actorType' | 'actorUuid' | 'action' | 'value' | 'sessionUuid' | 'sessionName' | 'createdAt'
>;

/**
 * A mutation's activity rows in one named prepared statement (one array per column), whatever their number: every
 * write tool runs it before commit.
 */
const INSERT_ACTIVITIES: PreparedStatement = {
  name: 'svc_activity_insert',
  text: `INSERT INTO activity (uuid, company_uuid, project_uuid, target_type, target_uuid, actor_type, actor_uuid, action, value, session_uuid, session_name, created_at)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::uuid[], $8::text[], $9::jsonb[], $10::uuid[],
                              $11::text[], $12::timestamptz[])`,
};

/** The `activity` table (README "Table ownership": collaboration owns it), tenant-scoped; activities outlive their targets. */
export class ActivityRepository extends Repository {
  async add(rows: readonly NewActivityRow[]): Promise<void> {
    const column = <K extends keyof NewActivityRow>(k: K) => rows.map((r) => r[k]);
    await preparedQuery(this.em, INSERT_ACTIVITIES, [
      column('uuid'),
      column('companyUuid'),
      column('projectUuid'),
      column('targetType'),
      column('targetUuid'),
      column('actorType'),
      column('actorUuid'),
      column('action'),
      // jsonb as TypeORM writes it: the value's JSON text.
      rows.map((r) => (r.value === null ? null : JSON.stringify(r.value))),
      column('sessionUuid'),
      column('sessionName'),
      column('createdAt'),
    ]);
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
