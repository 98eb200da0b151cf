import { ValidationError } from '../errors/app-error.js';
import type { PagingInput } from './paging.js';

const INTEGER = /^-?\d+$/;

/** docs/notifications.md §2.1 integer test: an optional minus and digits parse; anything else gives the default. */
function clampedInt(raw: unknown, def: number, min: number, max: number): number {
  if (typeof raw !== 'string' || !INTEGER.test(raw)) return def;
  return Math.min(max, Math.max(min, Number(raw)));
}

function strictInt(raw: unknown, field: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new ValidationError('Invalid input', [{ field, message: 'must be an integer' }]);
  return Number(raw);
}

/**
 * Paging of REST list routes from the query string: `limit`/`offset` (clamped to 1–100 / floored at 0, never
 * rejected, default 20/0) or `page`/`pageSize` (validated like the tools). The service answers
 * `{<items>, page, pageSize, total}` either way.
 */
export function restPaging(query: Readonly<Partial<Record<'page' | 'pageSize' | 'limit' | 'offset', unknown>>>): PagingInput {
  if (query.limit !== undefined || query.offset !== undefined) {
    return { limit: clampedInt(query.limit, 20, 1, 100), offset: clampedInt(query.offset, 0, 0, Number.MAX_SAFE_INTEGER) };
  }
  return { page: strictInt(query.page, 'page'), pageSize: strictInt(query.pageSize, 'pageSize') };
}
