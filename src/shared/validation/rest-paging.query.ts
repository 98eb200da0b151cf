import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * The paging query parameters every REST list accepts (read by `restPaging`, which validates or clamps them, so
 * the DTO only whitelists them). List query DTOs extend this class.
 */
export class RestPagingQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Page number, from 1 (default 1); VALIDATION_ERROR when out of range' })
  @Allow()
  page?: unknown;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, description: 'Rows per page, 1-100 (default 20); VALIDATION_ERROR when out of range' })
  @Allow()
  pageSize?: unknown;

  @ApiPropertyOptional({ type: 'integer', description: 'Rows to return, clamped to 1-100 (default 20); wins over page/pageSize' })
  @Allow()
  limit?: unknown;

  @ApiPropertyOptional({ type: 'integer', description: 'Rows to skip, floored at 0 (default 0)' })
  @Allow()
  offset?: unknown;
}
