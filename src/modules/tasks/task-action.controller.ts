import { Body, Controller, Param, Post } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiAction, ApiRoute, ApiSessionController, ApiUuidParam } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AssignTaskDto, CloseTaskDto, MarkCriteriaDto, ReopenTaskDto, SelfCheckDto, SubmitTaskDto, WorkReportDto } from './dto/task.dto.js';
import { TaskService } from './task.service.js';

const TASK = new UuidParamPipe('Task');

/**
 * The task workflow for the web client (platform.md §9): status moves, assignment, acceptance marks and work
 * reports, each the equivalent tool's service call. Identity rules still hold for the user: it is the assignee of
 * tasks assigned to it or to an agent it owns.
 */
@ApiSessionController('Tasks')
@Controller('api/tasks/:uuid')
@ApiUuidParam('uuid', 'Task')
export class TaskActionController {
  constructor(private readonly tasks: TaskService) {}

  @Post('claim')
  @ApiAction({
    summary: 'Claim an open task; claiming a task you already hold changes nothing (open -> assigned)',
    returns: 'TaskRecord with hints',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
  })
  claim(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.claim(actor, { taskUuid });
  }

  @Post('release')
  @ApiAction({ summary: 'Release a task you hold (assigned -> open)', returns: 'TaskRecord', errors: ['NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'] })
  release(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.release(actor, { taskUuid });
  }

  @Post('submit')
  @ApiAction({
    summary: 'Submit your task for verification (in_progress -> to_verify)',
    returns: 'TaskRecord',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  submit(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: SubmitTaskDto) {
    return this.tasks.submitForVerify(actor, { taskUuid, summary: body.summary });
  }

  @Post('verify')
  @ApiAction({
    summary: 'Verify a task whose required criteria all passed (to_verify -> done)',
    returns: 'TaskRecord',
    errors: ['NOT_FOUND', 'INVALID_STATE', 'CRITERIA_NOT_PASSED'],
  })
  verify(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string) {
    return this.tasks.verify(actor, { taskUuid });
  }

  @Post('reopen')
  @ApiAction({
    summary: 'Send a task back to work, resetting its marks (to_verify -> in_progress)',
    returns: 'TaskRecord',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE', 'BLOCKED'],
  })
  reopen(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: ReopenTaskDto) {
    return this.tasks.reopen(actor, { taskUuid, force: body.force });
  }

  @Post('close')
  @ApiAction({ summary: 'Close a task for good (any -> closed)', returns: 'TaskRecord', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  close(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: CloseTaskDto) {
    return this.tasks.close(actor, { taskUuid, reason: body.reason });
  }

  @Post('assign')
  @ApiAction({
    summary: 'Assign a task to a user or to an agent holding task:write (open|assigned -> assigned)',
    returns: 'TaskRecord with hints',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
  })
  assign(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: AssignTaskDto) {
    return this.tasks.assign(actor, { taskUuid, assigneeType: body.assigneeType, assigneeUuid: body.assigneeUuid });
  }

  @Post('criteria/marks')
  @ApiAction({
    summary: 'Mark acceptance criteria passed, failed or pending (svc_mark_acceptance_criteria)',
    returns: 'TaskRecord',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
  })
  markCriteria(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: MarkCriteriaDto) {
    return this.tasks.markCriteria(actor, { taskUuid, criteria: body.criteria });
  }

  @Post('criteria/self-check')
  @ApiAction({
    summary: "Record the assignee's own pass/fail marks (svc_report_criteria_self_check)",
    returns: 'TaskRecord',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  selfCheck(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: SelfCheckDto) {
    return this.tasks.selfCheck(actor, { taskUuid, criteria: body.criteria });
  }

  // A work report is stored as a new comment, so this POST creates something: 201.
  @Post('work-reports')
  @ApiRoute({
    summary: 'Report work on your task as a comment, optionally moving its status (svc_report_work)',
    returns: '{task: TaskRecord, commentUuid}',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE', 'BLOCKED'],
    status: 201,
  })
  reportWork(@CurrentActor() actor: Actor, @Param('uuid', TASK) taskUuid: string, @Body() body: WorkReportDto) {
    return this.tasks.reportWork(actor, { taskUuid, report: body.report, status: body.status });
  }
}
