import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { SessionPageDto, SessionRecordDto } from './dto/session-record.dto.js';
import { CreateSessionDto, ListSessionsArgsDto, SessionRefDto, SessionTaskDto } from './dto/session.dto.js';
import { SessionService } from './session.service.js';

/** The session tools: public (no gate), always listed. */
@Injectable()
export class SessionTools {
  constructor(private readonly sessions: SessionService) {}

  @Tool({
    name: 'svc_create_session',
    title: 'Create session',
    hint: 'W',
    description: 'Creates an active worker session for your agent (-> active). Attach it to a task with svc_session_checkin_task.',
    input: CreateSessionDto,
  })
  createSession(args: CreateSessionDto, ctx: ToolContext) {
    return this.sessions.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_session_checkin_task',
    title: 'Check in to task',
    hint: 'W',
    description: 'Checks a session in to a task and claims the task if it is open (open -> assigned). Check out with svc_session_checkout_task.',
    input: SessionTaskDto,
  })
  checkinTask(args: SessionTaskDto, ctx: ToolContext) {
    return this.sessions.checkinTask(ctx.actor, args);
  }

  @Tool({
    name: 'svc_session_checkout_task',
    title: 'Check out of task',
    hint: 'WI',
    description: "Checks a session out of a task without changing the task's status. Close the session with svc_close_session when finished.",
    input: SessionTaskDto,
  })
  checkoutTask(args: SessionTaskDto, ctx: ToolContext) {
    return this.sessions.checkoutTask(ctx.actor, args);
  }

  @Tool({
    name: 'svc_session_heartbeat',
    title: 'Session heartbeat',
    hint: 'WI',
    description: 'Records that a session is still working. Repeat it periodically until svc_close_session.',
    input: SessionRefDto,
  })
  heartbeat(args: SessionRefDto, ctx: ToolContext) {
    return this.sessions.heartbeat(ctx.actor, args);
  }

  @Tool({
    name: 'svc_close_session',
    title: 'Close session',
    hint: 'WI',
    description: 'Closes a session and checks it out of every task (active -> closed). Reopen it with svc_reopen_session.',
    input: SessionRefDto,
  })
  closeSession(args: SessionRefDto, ctx: ToolContext) {
    return this.sessions.close(ctx.actor, args);
  }

  @Tool({
    name: 'svc_reopen_session',
    title: 'Reopen session',
    hint: 'W',
    description: 'Reopens a closed session (closed -> active). Check in again with svc_session_checkin_task.',
    input: SessionRefDto,
  })
  reopenSession(args: SessionRefDto, ctx: ToolContext) {
    return this.sessions.reopen(ctx.actor, args);
  }

  @Tool({
    name: 'svc_list_sessions',
    title: 'List sessions',
    hint: 'R',
    description: "Lists your agent's sessions, optionally by status. Open one with svc_get_session.",
    input: ListSessionsArgsDto,
    output: SessionPageDto,
  })
  listSessions(args: ListSessionsArgsDto, ctx: ToolContext) {
    return this.sessions.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_session',
    title: 'Get session',
    hint: 'R',
    description: 'Returns one of your sessions with its open check-ins. Keep it active with svc_session_heartbeat.',
    input: SessionRefDto,
    output: SessionRecordDto,
  })
  getSession(args: SessionRefDto, ctx: ToolContext) {
    return this.sessions.get(ctx.actor, args);
  }
}
