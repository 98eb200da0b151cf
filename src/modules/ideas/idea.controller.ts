import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ValidationError } from '../../shared/errors/app-error.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AssignIdeaDto, CreateIdeaDto, EditIdeaDto, ListIdeasQueryDto, MoveIdeaDto } from './dto/idea.dto.js';
import { IdeaService } from './idea.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { IdeaMoveDto, IdeaPageDto, IdeaRecordDto } from './dto/idea-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const projectUuid = new UuidParamPipe('Project');
const ideaUuid = new UuidParamPipe('Idea');

/** docs/platform.md §9 ideas: the operations of svc_*_idea, plus assign (REST only). */
@ApiTags('ideas')
@ApiCookieAuth('session')
@ApiController('api')
export class IdeaController {
  constructor(private readonly ideas: IdeaService) {}

  @Get('projects/:uuid/ideas')
  @ApiRoute({ answer: IdeaPageDto, summary: "List a project's ideas, newest first (status filter, or available=true for open ones)", errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  list(@CurrentActor() actor: Actor, @Param('uuid', projectUuid) uuid: string, @Query() query: ListIdeasQueryDto) {
    const input = { projectUuid: uuid, ...restPaging(query) };
    if (query.available !== 'true') return this.ideas.list(actor, { ...input, status: query.status });
    if (query.status !== undefined) throw new ValidationError('Invalid input', [{ field: 'status', message: 'cannot be combined with available=true' }]);
    return this.ideas.listAvailable(actor, input);
  }

  @Post('projects/:uuid/ideas')
  @ApiRoute({ answer: IdeaRecordDto, created: true, summary: 'Create an idea (-> open), optionally as a theme or a child of another idea', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  create(@CurrentActor() actor: Actor, @Param('uuid', projectUuid) uuid: string, @Body() body: CreateIdeaDto) {
    return this.ideas.create(actor, { ...body, projectUuid: uuid });
  }

  @Get('ideas/:uuid')
  @ApiRoute({ answer: IdeaRecordDto, summary: 'Get an idea with its children, proposals, reports and references', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  get(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.ideas.get(actor, { ideaUuid: uuid });
  }

  @Patch('ideas/:uuid')
  @ApiRoute({ answer: IdeaRecordDto, summary: "Edit an idea's title, content, theme flag or parent (null detaches)", errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  edit(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: EditIdeaDto) {
    return this.ideas.edit(actor, { ...body, ideaUuid: uuid });
  }

  @Delete('ideas/:uuid')
  @ApiRoute({ answer: DeletedDto, summary: 'Delete an idea; its children become top-level', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.ideas.delete(actor, { ideaUuid: uuid });
  }

  @Post('ideas/:uuid/claim')
  @HttpCode(200)
  @ApiRoute({ answer: IdeaRecordDto, summary: 'Claim an open idea (open -> elaborating)', errors: ['NOT_FOUND', 'INVALID_STATE'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  claim(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.ideas.claim(actor, { ideaUuid: uuid });
  }

  @Post('ideas/:uuid/release')
  @HttpCode(200)
  @ApiRoute({ answer: IdeaRecordDto, summary: 'Release an idea you elaborate (elaborating -> open)', errors: ['NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  release(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.ideas.release(actor, { ideaUuid: uuid });
  }

  @Post('ideas/:uuid/move')
  @HttpCode(200)
  @ApiRoute({ answer: IdeaMoveDto, summary: 'Move an idea, its descendants and what was built on them to another project', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  move(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: MoveIdeaDto) {
    return this.ideas.move(actor, { ideaUuid: uuid, targetProjectUuid: body.targetProjectUuid });
  }

  @Post('ideas/:uuid/assign')
  @HttpCode(200)
  @ApiRoute({ answer: IdeaRecordDto, summary: 'Assign an idea to a user or an agent holding idea:write (open, elaborating -> elaborating)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  assign(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: AssignIdeaDto) {
    return this.ideas.assign(actor, { ideaUuid: uuid, assigneeType: body.assigneeType, assigneeUuid: body.assigneeUuid });
  }
}
