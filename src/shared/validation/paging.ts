import { ValidationError, type FieldIssue } from '../errors/app-error.js';

/**
 * Paging of every list. Tools (docs/tool-conventions.md §1.2) send `page` ≥ 1 (default 1) and `pageSize` 1–100 (default 20), and
 * out-of-range values are VALIDATION_ERROR. REST lists may instead send `limit`/`offset`, which are clamped like the
 * notification list and never rejected (see rest-paging.ts); they win when present.
 */
export interface Paging {
  page: number;
  pageSize: number;
  /** Rows to skip. */
  offset: number;
}

export interface PagingInput {
  page?: number;
  pageSize?: number;
  /** REST only, already clamped to 1–100. */
  limit?: number;
  /** REST only, already floored at 0. */
  offset?: number;
}

export function paging(input: PagingInput = {}): Paging {
  if (input.limit !== undefined || input.offset !== undefined) {
    const pageSize = Math.min(100, Math.max(1, Math.trunc(input.limit ?? 20)));
    const offset = Math.max(0, Math.trunc(input.offset ?? 0));
    return { page: Math.floor(offset / pageSize) + 1, pageSize, offset };
  }
  const issues: FieldIssue[] = [];
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 20;
  if (!Number.isInteger(page) || page < 1) issues.push({ field: 'page', message: 'must be an integer of at least 1' });
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) issues.push({ field: 'pageSize', message: 'must be an integer between 1 and 100' });
  if (issues.length) throw new ValidationError('Invalid arguments', issues);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export const offsetOf = (p: Paging): number => p.offset;

export interface PageResult {
  page: number;
  pageSize: number;
  total: number;
}
