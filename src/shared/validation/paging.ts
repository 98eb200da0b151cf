import { ValidationError, type FieldIssue } from '../errors/app-error.js';

/** tools.md §1.2: page ≥ 1 (default 1), pageSize 1–100 (default 20); out of range is VALIDATION_ERROR. */
export interface Paging {
  page: number;
  pageSize: number;
}

export function paging(input: { page?: number; pageSize?: number } = {}): Paging {
  const issues: FieldIssue[] = [];
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 20;
  if (!Number.isInteger(page) || page < 1) issues.push({ field: 'page', message: 'must be an integer of at least 1' });
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) issues.push({ field: 'pageSize', message: 'must be an integer between 1 and 100' });
  if (issues.length) throw new ValidationError('Invalid arguments', issues);
  return { page, pageSize };
}

export const offsetOf = (p: Paging): number => (p.page - 1) * p.pageSize;

export interface PageResult {
  page: number;
  pageSize: number;
  total: number;
}
