import { Body, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { PagingQueryDto } from '../../shared/validation/paging-query.dto.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { CreateProjectGroupDto, UpdateProjectGroupDto } from './dto/project.dto.js';
import { ProjectGroupService } from './project-group.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { GroupDashboardDto, GroupDeletedDto, GroupPageDto, GroupRecordDto } from './dto/project-record.dto.js';

const groupUuid = new UuidParamPipe('Project group');

/** docs/platform.md §9 project groups. Groups publish no change events. */
@ApiTags('project-groups')
@ApiCookieAuth('session')
@ApiController('api/project-groups')
export class ProjectGroupController {
  constructor(private readonly groups: ProjectGroupService) {}

  @Get()
  @ApiRoute({ answer: GroupPageDto, summary: 'List project groups, oldest first, with the count of ungrouped projects', errors: ['VALIDATION_ERROR'] })
  list(@CurrentActor() actor: Actor, @Query() query: PagingQueryDto) {
    return this.groups.list(actor, restPaging(query));
  }

  @Post()
  @ApiRoute({ answer: GroupRecordDto, created: true, summary: 'Create an empty project group', errors: ['VALIDATION_ERROR'] })
  create(@CurrentActor() actor: Actor, @Body() body: CreateProjectGroupDto) {
    return this.groups.create(actor, body);
  }

  @Get(':uuid')
  @ApiRoute({ answer: GroupRecordDto, summary: 'Get a project group with its projects', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  get(@CurrentActor() actor: Actor, @Param('uuid', groupUuid) uuid: string) {
    return this.groups.get(actor, { groupUuid: uuid });
  }

  @Patch(':uuid')
  @ApiRoute({ answer: GroupRecordDto, summary: 'Rename or describe a project group', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  update(@CurrentActor() actor: Actor, @Param('uuid', groupUuid) uuid: string, @Body() body: UpdateProjectGroupDto) {
    return this.groups.update(actor, { ...body, groupUuid: uuid });
  }

  @Delete(':uuid')
  @ApiRoute({ answer: GroupDeletedDto, summary: 'Delete a project group; its projects become ungrouped', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', groupUuid) uuid: string) {
    return this.groups.delete(actor, { groupUuid: uuid });
  }

  @Get(':uuid/dashboard')
  @ApiRoute({ answer: GroupDashboardDto, summary: "A group's completion, open ideas, active proposals and latest activity", errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  dashboard(@CurrentActor() actor: Actor, @Param('uuid', groupUuid) uuid: string) {
    return this.groups.dashboard(actor, { groupUuid: uuid });
  }
}
