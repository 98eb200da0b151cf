import { Body, Get, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { CommentService } from './comment.service.js';
import { AddCommentDto, ListCommentsQueryDto } from './dto/collaboration.dto.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { CommentPageDto, CommentRecordDto } from './dto/collaboration-record.dto.js';

/** docs/platform.md §9 comments: append-only; adding one publishes `<targetType> updated`. */
@ApiTags('comments')
@ApiCookieAuth('session')
@ApiController('api/comments')
export class CommentController {
  constructor(private readonly comments: CommentService) {}

  @Get()
  @ApiRoute({ answer: CommentPageDto, summary: 'List the comments on an idea, proposal, task or document, oldest first', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  list(@CurrentActor() actor: Actor, @Query() query: ListCommentsQueryDto) {
    return this.comments.list(actor, { targetType: query.targetType, targetUuid: query.targetUuid, ...restPaging(query) });
  }

  @Post()
  @ApiRoute({ answer: CommentRecordDto, created: true, summary: 'Add a comment, notifying anyone it mentions', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  add(@CurrentActor() actor: Actor, @Body() body: AddCommentDto) {
    return this.comments.add(actor, body);
  }
}
