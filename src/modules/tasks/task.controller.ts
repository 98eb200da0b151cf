import { Body, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { CreateTasksDto, UpdateTaskDto } from './dto/task.dto.js';
import { ListTasksQuery, TaskFilterQuery } from './dto/task-query.dto.js';
import { TaskService } from './task.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { CreatedTasksDto, TaskPageDto, TaskRecordDto } from './dto/task-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const PROJECT = new UuidParamPipe('Project');
const TASK = new UuidParamPipe('Task');

/** Task reads, creation, edits and deletion for the web client (docs/platform.md §9); the user acts with every bit. */
@ApiTags('tasks')
@ApiCookieAuth('session')
@ApiController('api')
export class TaskController {
  constructor(private readonly tasks: TaskService) {}

  @Get('projects/:uuid/tasks')
  @ApiRoute({ answer: TaskPageDto, summary: 'List the tasks of a project by priority, newest first (svc_list_tasks)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  list(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Query() q: ListTasksQuery) {
    return this.tasks.list(actor, { projectUuid, status: q.status, priority: q.priority, proposalUuids: q.proposalUuids, ...restPaging(q) });
  }

  @Post('projects/:uuid/tasks')
  @ApiRoute({
    answer: CreatedTasksDto,
    summary: 'Create 1-50 tasks with criteria and dependencies, all-or-nothing (svc_create_tasks)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
    created: true,
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  create(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Body() body: CreateTasksDto) {
    return this.tasks.createTasks(actor, { projectUuid, proposalUuid: body.proposalUuid, tasks: body.tasks });
  }

  @Get('projects/:uuid/tasks/available')
  @ApiRoute({ answer: TaskPageDto, summary: 'List the open tasks of a project whose prerequisites are all done or closed (svc_get_available_tasks)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  listAvailable(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Query() q: TaskFilterQuery) {
    return this.tasks.listAvailable(actor, { projectUuid, proposalUuids: q.proposalUuids, ...restPaging(q) });
  }

  @Get('projects/:uuid/tasks/unblocked')
  @ApiRoute({
    answer: TaskPageDto,
    summary: 'List open or assigned tasks whose prerequisites are all done or closed (svc_get_unblocked_tasks)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  listUnblocked(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Query() q: TaskFilterQuery) {
    return this.tasks.listUnblocked(actor, { projectUuid, proposalUuids: q.proposalUuids, ...restPaging(q) });
  }

  @Get('tasks/:uuid')
  @ApiRoute({ answer: TaskRecordDto, summary: 'Get a task (svc_get_task)', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Task' })
  get(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.get(actor, { taskUuid });
  }

  @Patch('tasks/:uuid')
  @ApiRoute({
    answer: TaskRecordDto,
    summary: 'Edit a task, replace its criteria, change its dependencies or move its status (svc_update_task)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE', 'BLOCKED'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Task' })
  update(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: UpdateTaskDto) {
    return this.tasks.update(actor, { ...body, taskUuid });
  }

  @Delete('tasks/:uuid')
  @ApiRoute({ answer: DeletedDto, summary: 'Delete a task with its edges, criteria, comments and references (svc_admin_delete_task)', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Task' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.delete(actor, { taskUuid });
  }
}
