import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsOptional } from 'class-validator';
import { EnumField, UuidArgs, UuidListField } from '../../../shared/validation/fields.js';
import { IsEntityUuidList } from '../../../shared/validation/is-entity-uuid-list.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { MAX_PROPOSAL_FILTER, PRIORITIES, type Priority } from '../domain/task-fields.js';
import { TASK_STATUSES, type TaskStatus } from '../domain/task-transition.js';

/** The task reads (docs/tool-conventions.md §5.1): tool arguments, and the query strings of the equivalent routes. */
export class TaskRefDto extends UuidArgs('taskUuid', 'The task') {}

/** svc_list_tasks' filters beyond the project and its proposals; `?status=&priority=` of the list route. */
export class TaskListFilterDto {
  @EnumField(TASK_STATUSES, { optional: true, description: 'Only tasks in this status' })
  status?: TaskStatus;

  @EnumField(PRIORITIES, { optional: true, description: 'Only tasks of this priority' })
  priority?: Priority;
}

class ProposalFilterArgsDto {
  @UuidListField({ optional: true, maxItems: MAX_PROPOSAL_FILTER, description: `Only tasks of these proposals, at most ${MAX_PROPOSAL_FILTER} uuids` })
  proposalUuids?: string[];
}

/** svc_get_available_tasks, svc_get_unblocked_tasks. */
export class TaskFilterArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project whose tasks are listed'), ProposalFilterArgsDto, PagingArgsDto) {}
export class ListTasksArgsDto extends IntersectionType(TaskFilterArgsDto, TaskListFilterDto) {}

/** `proposalUuids=a,b` and `proposalUuids=a&proposalUuids=b` both give `[a, b]`. */
const commaList = ({ value }: { value: unknown }): unknown =>
  (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v]));

export class TaskFilterQuery extends PagingQueryDto {
  @ApiPropertyOptional({ type: [String], description: `Only tasks of these proposals (comma-separated or repeated, at most ${MAX_PROPOSAL_FILTER} uuids)` })
  @IsOptional()
  @Transform(commaList)
  @IsEntityUuidList()
  @ArrayMaxSize(MAX_PROPOSAL_FILTER)
  proposalUuids?: string[];
}

export class ListTasksQuery extends IntersectionType(TaskFilterQuery, TaskListFilterDto) {}
