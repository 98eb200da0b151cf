import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AssignTaskDto, CloseTaskDto, MarkCriteriaDto, ReopenTaskDto, SelfCheckDto, SubmitTaskDto, WorkReportDto } from './dto/task-action.dto.js';
import { TaskService } from './task.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { TaskRecordDto, TaskRecordWithHintsDto, WorkReportResultDto } from './dto/task-record.dto.js';

const TASK = new UuidParamPipe('Task');

/**
 * The task workflow for the web client (docs/platform.md §9): status moves, assignment, acceptance marks and work
 * reports, each the equivalent tool's service call. Identity rules still hold for the user: it is the assignee of
 * tasks assigned to it or to an agent it owns.
 */
@ApiTags('tasks')
@ApiCookieAuth('session')
@ApiController('api/tasks/:uuid')
@ApiParam({ name: 'uuid', format: 'uuid', description: 'Task' })
export class TaskActionController {
  constructor(private readonly tasks: TaskService) {}

  @Post('claim')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordWithHintsDto,
    summary: 'Claim an open task; claiming a task you already hold changes nothing (open -> assigned)',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
  })
  claim(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.claim(actor, { taskUuid });
  }

  @Post('release')
  @HttpCode(200)
  @ApiRoute({ answer: TaskRecordDto, summary: 'Release a task you hold (assigned -> open)', errors: ['NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'] })
  release(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.release(actor, { taskUuid });
  }

  @Post('submit')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordDto,
    summary: 'Submit your task for verification (in_progress -> to_verify)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  submit(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: SubmitTaskDto) {
    return this.tasks.submitForVerify(actor, { taskUuid, summary: body.summary });
  }

  @Post('verify')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordDto,
    summary: 'Verify a task whose required criteria all passed (to_verify -> done)',
    errors: ['NOT_FOUND', 'INVALID_STATE', 'CRITERIA_NOT_PASSED'],
  })
  verify(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.verify(actor, { taskUuid });
  }

  @Post('reopen')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordDto,
    summary: 'Send a task back to work, resetting its marks (to_verify -> in_progress)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE', 'BLOCKED'],
  })
  reopen(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: ReopenTaskDto) {
    return this.tasks.reopen(actor, { taskUuid, force: body.force });
  }

  @Post('close')
  @HttpCode(200)
  @ApiRoute({ answer: TaskRecordDto, summary: 'Close a task for good (any -> closed)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  close(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: CloseTaskDto) {
    return this.tasks.close(actor, { taskUuid, reason: body.reason });
  }

  @Post('assign')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordWithHintsDto,
    summary: 'Assign a task to a user or to an agent holding task:write (open|assigned -> assigned)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
  })
  assign(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: AssignTaskDto) {
    return this.tasks.assign(actor, { taskUuid, assigneeType: body.assigneeType, assigneeUuid: body.assigneeUuid });
  }

  @Post('criteria/marks')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordDto,
    summary: 'Mark acceptance criteria passed, failed or pending (svc_mark_acceptance_criteria)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
  })
  markCriteria(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: MarkCriteriaDto) {
    return this.tasks.markCriteria(actor, { taskUuid, criteria: body.criteria });
  }

  @Post('criteria/self-check')
  @HttpCode(200)
  @ApiRoute({
    answer: TaskRecordDto,
    summary: "Record the assignee's own pass/fail marks (svc_report_criteria_self_check)",
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  selfCheck(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: SelfCheckDto) {
    return this.tasks.selfCheck(actor, { taskUuid, criteria: body.criteria });
  }

  // A work report is stored as a new comment, so this POST creates something: 201.
  @Post('work-reports')
  @ApiRoute({
    answer: WorkReportResultDto,
    summary: 'Report work on your task as a comment, optionally moving its status (svc_report_work)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE', 'BLOCKED'],
    created: true,
  })
  reportWork(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: WorkReportDto) {
    return this.tasks.reportWork(actor, { taskUuid, report: body.report, status: body.status });
  }
}
