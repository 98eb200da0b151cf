import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/**
 * The paging query of every REST list route. Values stay strings here: `restPaging()` validates page/pageSize like
 * the tools and clamps limit/offset, so all list routes behave the same.
 */
export class PagingQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number (validated)' })
  @IsOptional()
  @IsString()
  page?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size (validated)' })
  @IsOptional()
  @IsString()
  pageSize?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Clamped to 1-100; wins over page/pageSize' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Floored at 0; wins over page/pageSize' })
  @IsOptional()
  @IsString()
  offset?: string;
}
