import { Get, Param, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { ActivityService } from './activity.service.js';
import { ListActivityQueryDto } from './dto/collaboration.dto.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ActivityPageDto } from './dto/collaboration-record.dto.js';

@ApiTags('activity')
@ApiCookieAuth('session')
@ApiController('api/projects/:uuid/activity')
export class ActivityController {
  constructor(private readonly activity: ActivityService) {}

  @Get()
  @ApiRoute({ answer: ActivityPageDto, summary: "A project's activity, newest first, optionally for one target", errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  list(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Project')) uuid: string, @Query() query: ListActivityQueryDto) {
    return this.activity.list(actor, { projectUuid: uuid, targetType: query.targetType, targetUuid: query.targetUuid, ...restPaging(query) });
  }
}
