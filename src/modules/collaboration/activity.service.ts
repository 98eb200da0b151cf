import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager, type FindOptionsWhere } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { ActivityEntity } from '../../shared/database/activity.entity.js';
import { PersonResolver } from '../../shared/database/person.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { toActivityRecord, type ActivityRecord } from './collaboration.records.js';
import { parseTargetType } from './target.js';

export interface ListActivityInput {
  projectUuid: string;
  targetType?: string;
  targetUuid?: string;
  page?: number;
  pageSize?: number;
}

const NEWEST_FIRST = { createdAt: 'DESC', uuid: 'ASC' } as const;

async function toRecords(em: EntityManager, rows: ActivityEntity[]): Promise<ActivityRecord[]> {
  const people = await PersonResolver.load(em, rows.map((a) => ({ type: a.actorType, uuid: a.actorUuid })));
  return rows.map((a) => toActivityRecord(a, people));
}

/** The newest activities across several projects (group dashboard's `recentActivity`). */
export async function recentActivities(em: EntityManager, companyUuid: string, projectUuids: string[], limit: number): Promise<ActivityRecord[]> {
  if (!projectUuids.length) return [];
  const rows = await em.find(ActivityEntity, {
    where: { companyUuid, projectUuid: In(projectUuids) },
    order: NEWEST_FIRST,
    take: limit,
  });
  return toRecords(em, rows);
}

/** Reads of the project's audit stream (domain.md §2.18); activities outlive their targets. */
@Injectable()
export class ActivityService {
  constructor(private readonly db: DataSource) {}

  async list(actor: Actor, input: ListActivityInput): Promise<{ activities: ActivityRecord[] } & PageResult> {
    const p = paging(input);
    if (input.targetUuid != null && input.targetType == null) {
      throw new ValidationError('Invalid arguments', [{ field: 'targetUuid', message: 'requires targetType' }]);
    }
    const targetType = input.targetType != null ? parseTargetType(input.targetType) : undefined;
    if (input.targetUuid != null && !isUuid(input.targetUuid)) {
      throw new ValidationError('Invalid arguments', [{ field: 'targetUuid', message: 'must be a uuid' }]);
    }
    const em = this.db.manager;
    if (!isUuid(input.projectUuid)) throw new NotFoundError('Project');
    const project: unknown[] = await em.query('SELECT 1 FROM project WHERE uuid = $1 AND company_uuid = $2', [input.projectUuid, actor.companyUuid]);
    if (!project.length) throw new NotFoundError('Project');

    const where: FindOptionsWhere<ActivityEntity> = { companyUuid: actor.companyUuid, projectUuid: input.projectUuid };
    if (targetType) where.targetType = targetType;
    if (input.targetUuid != null) where.targetUuid = input.targetUuid;
    const [rows, total] = await em.findAndCount(ActivityEntity, { where, order: NEWEST_FIRST, skip: offsetOf(p), take: p.pageSize });
    return { activities: await toRecords(em, rows), page: p.page, pageSize: p.pageSize, total };
  }
}
