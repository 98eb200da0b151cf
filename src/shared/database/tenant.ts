import type { EntityManager, EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import { NotFoundError } from '../errors/app-error.js';

/**
 * Tenant scoping in the query, every time: a record of another company is exactly "<Entity> not found".
 * `lock` takes a row lock (FOR UPDATE) for status checks inside a transaction.
 */
export async function findInCompany<T extends ObjectLiteral & { uuid: string; companyUuid: string }>(
  em: EntityManager,
  entity: EntityTarget<T>,
  uuid: string,
  companyUuid: string,
  displayName: string,
  lock = false,
): Promise<T> {
  const row = await em.findOne(entity, {
    where: { uuid, companyUuid } as FindOptionsWhere<T>,
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!row) throw new NotFoundError(displayName);
  return row;
}
