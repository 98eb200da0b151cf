import type { EntityManager } from 'typeorm';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import type { EntityType } from '../../shared/event-bus/events.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/** What comments, references and activities hang off: an idea, proposal, task or document. */
export type TargetType = EntityType;

export const TARGET_TYPES: readonly TargetType[] = ['idea', 'proposal', 'task', 'document'];

export const TARGET_DISPLAY_NAMES: Record<TargetType, string> = {
  idea: 'Idea',
  proposal: 'Proposal',
  task: 'Task',
  document: 'Document',
};

/** Table names are fixed here, never taken from input. */
const TABLES: Record<TargetType, string> = { idea: 'idea', proposal: 'proposal', task: 'task', document: 'document' };

export interface ResolvedTarget {
  type: TargetType;
  uuid: string;
  projectUuid: string;
  title: string;
}

export function parseTargetType(value: unknown, allowed: readonly TargetType[] = TARGET_TYPES): TargetType {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ValidationError('Invalid arguments', [{ field: 'targetType', message: `must be one of ${allowed.join(', ')}` }]);
  }
  return value as TargetType;
}

/**
 * The target's project and title, tenant-scoped: a missing target, another company's, or a malformed uuid is
 * "<Entity> not found". `lock` takes FOR UPDATE so counted children (the reference limit) cannot race.
 */
export async function resolveTarget(
  em: EntityManager,
  companyUuid: string,
  type: TargetType,
  uuid: string,
  lock = false,
): Promise<ResolvedTarget> {
  const table = TABLES[parseTargetType(type)];
  if (!isUuid(uuid)) throw new NotFoundError(TARGET_DISPLAY_NAMES[type]);
  const rows: Array<{ project_uuid: string; title: string }> = await em.query(
    `SELECT project_uuid, title FROM ${table} WHERE uuid = $1 AND company_uuid = $2${lock ? ' FOR UPDATE' : ''}`,
    [uuid, companyUuid],
  );
  if (!rows.length) throw new NotFoundError(TARGET_DISPLAY_NAMES[type]);
  return { type, uuid: uuid.toLowerCase(), projectUuid: rows[0].project_uuid, title: rows[0].title };
}
