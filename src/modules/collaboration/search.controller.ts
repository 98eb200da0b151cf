import { Get, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { MentionablesQueryDto, SearchQueryDto } from './dto/collaboration.dto.js';
import { SearchService } from './search.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { MentionablePageDto, SearchPageDto } from './dto/collaboration-record.dto.js';

@ApiTags('search')
@ApiCookieAuth('session')
@ApiController('api')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get('search')
  @ApiRoute({ answer: SearchPageDto, summary: 'Search tasks, ideas, proposals, documents, projects and groups by text or uuid', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  query(@CurrentActor() actor: Actor, @Query() query: SearchQueryDto) {
    // A query string carries a list as one comma-separated value; the service checks the members.
    const entityTypes = query.entityTypes?.split(',').map((t) => t.trim()).filter((t) => t !== '');
    return this.search.search(actor, { query: query.q, scope: query.scope, scopeUuid: query.scopeUuid, entityTypes, ...restPaging(query) });
  }

  @Get('mentionables')
  @ApiRoute({ answer: MentionablePageDto, summary: 'Users (by name or email) and agents (by name) that can be @mentioned', errors: ['VALIDATION_ERROR'] })
  mentionables(@CurrentActor() actor: Actor, @Query() query: MentionablesQueryDto) {
    return this.search.mentionables(actor, { query: query.q, ...restPaging(query) });
  }
}
