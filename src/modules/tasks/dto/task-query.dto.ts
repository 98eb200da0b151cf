import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsIn, IsOptional } from 'class-validator';
import { IsEntityUuidList } from '../../../shared/validation/is-entity-uuid-list.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { TASK_STATUSES } from '../domain/task-transition.js';
import { PRIORITIES } from '../task-input.js';

/** `proposalUuids=a,b` and `proposalUuids=a&proposalUuids=b` both give `[a, b]`. */
const commaList = ({ value }: { value: unknown }): unknown =>
  (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v]));

export class TaskFilterQuery extends PagingQueryDto {
  @ApiPropertyOptional({ type: [String], description: 'Only tasks of these proposals (comma-separated or repeated, at most 20 uuids)' })
  @IsOptional()
  @Transform(commaList)
  @IsEntityUuidList()
  @ArrayMaxSize(20)
  proposalUuids?: string[];
}

export class ListTasksQuery extends TaskFilterQuery {
  @ApiPropertyOptional({ enum: TASK_STATUSES, description: 'Only tasks in this status' })
  @IsOptional()
  @IsIn(TASK_STATUSES)
  status?: (typeof TASK_STATUSES)[number];

  @ApiPropertyOptional({ enum: PRIORITIES, description: 'Only tasks of this priority' })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: (typeof PRIORITIES)[number];
}
