import type { EntityManager } from 'typeorm';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import type { EntityType } from '../../shared/event-bus/events.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { TargetRepository } from './target.repository.js';

/** What comments, references and activities hang off: an idea, proposal, task or document. */
export type TargetType = EntityType;

export const TARGET_TYPES: readonly TargetType[] = ['idea', 'proposal', 'task', 'document'];

export const TARGET_DISPLAY_NAMES: Record<TargetType, string> = {
  idea: 'Idea',
  proposal: 'Proposal',
  task: 'Task',
  document: 'Document',
};

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
  parseTargetType(type);
  if (!isUuid(uuid)) throw new NotFoundError(TARGET_DISPLAY_NAMES[type]);
  const row = await new TargetRepository(em).projectAndTitle(type, uuid, companyUuid, lock);
  if (!row) throw new NotFoundError(TARGET_DISPLAY_NAMES[type]);
  return { type, uuid: uuid.toLowerCase(), projectUuid: row.project_uuid, title: row.title };
}
