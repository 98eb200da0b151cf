import { Get, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { ListSessionsQueryDto } from './dto/session.dto.js';
import { SessionService } from './session.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { SessionPageDto } from './dto/session-record.dto.js';

/** docs/platform.md §9: the web's read-only view of the company's agent sessions (agents manage them through tools). */
@ApiTags('sessions')
@ApiCookieAuth('session')
@ApiController('api/sessions')
export class SessionController {
  constructor(private readonly sessions: SessionService) {}

  @Get()
  @ApiRoute({ answer: SessionPageDto, summary: "List the company's agent sessions, newest first, with their open check-ins", errors: ['VALIDATION_ERROR'] })
  list(@CurrentActor() actor: Actor, @Query() query: ListSessionsQueryDto) {
    return this.sessions.listForCompany(actor, { agentUuid: query.agentUuid, status: query.status, ...restPaging(query) });
  }
}
