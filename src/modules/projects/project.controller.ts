import { Body, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { PagingQueryDto } from '../../shared/validation/paging-query.dto.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { CreateProjectDto, UpdateProjectDto } from './dto/project.dto.js';
import { ProjectService } from './project.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ProjectPageDto, ProjectRecordDto } from './dto/project-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const projectUuid = new UuidParamPipe('Project');

/** docs/platform.md §9 projects. Projects publish no change events. */
@ApiTags('projects')
@ApiCookieAuth('session')
@ApiController('api/projects')
export class ProjectController {
  constructor(private readonly projects: ProjectService) {}

  @Get()
  @ApiRoute({ answer: ProjectPageDto, summary: 'List projects with entity counts, most recently updated first', errors: ['VALIDATION_ERROR'] })
  list(@CurrentActor() actor: Actor, @Query() query: PagingQueryDto) {
    return this.projects.list(actor, restPaging(query));
  }

  @Post()
  @ApiRoute({ answer: ProjectRecordDto, created: true, summary: 'Create a project, optionally inside a group', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  create(@CurrentActor() actor: Actor, @Body() body: CreateProjectDto) {
    return this.projects.create(actor, body);
  }

  @Get(':uuid')
  @ApiRoute({ answer: ProjectRecordDto, summary: 'Get a project with its group and task status counts', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  get(@CurrentActor() actor: Actor, @Param('uuid', projectUuid) uuid: string) {
    return this.projects.get(actor, { projectUuid: uuid });
  }

  @Patch(':uuid')
  @ApiRoute({ answer: ProjectRecordDto, summary: 'Rename, describe or move a project to a group (groupUuid null ungroups it)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  update(@CurrentActor() actor: Actor, @Param('uuid', projectUuid) uuid: string, @Body() body: UpdateProjectDto) {
    return this.projects.update(actor, { ...body, projectUuid: uuid });
  }

  @Delete(':uuid')
  @ApiRoute({ answer: DeletedDto, summary: 'Delete an empty project', errors: ['NOT_FOUND', 'CONFLICT'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', projectUuid) uuid: string) {
    return this.projects.delete(actor, { projectUuid: uuid });
  }
}
