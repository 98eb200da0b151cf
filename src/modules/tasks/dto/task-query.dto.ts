import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsOptional } from 'class-validator';
import { EnumField } from '../../../shared/validation/fields.js';
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
  @EnumField(TASK_STATUSES, { optional: true, description: 'Only tasks in this status' })
  status?: (typeof TASK_STATUSES)[number];

  @EnumField(PRIORITIES, { optional: true, description: 'Only tasks of this priority' })
  priority?: (typeof PRIORITIES)[number];
}
