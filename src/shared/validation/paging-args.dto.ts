import { IntegerField } from './fields.js';

/** Paging arguments of every list tool (docs/tool-conventions.md §1.2); REST lists take them as query strings (paging-query.dto.ts). */
export class PagingArgsDto {
  @IntegerField({ optional: true, minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'From 1 (default 1)' })
  page?: number;

  @IntegerField({ optional: true, minimum: 1, maximum: 100, description: '1-100 (default 20)' })
  pageSize?: number;
}
