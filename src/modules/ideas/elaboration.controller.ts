import { Body, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AnswerElaborationDto, SkipElaborationDto, StartElaborationDto } from './dto/elaboration.dto.js';
import { ElaborationService } from './elaboration.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ElaborationStateDto } from './dto/elaboration-record.dto.js';

const ideaUuid = new UuidParamPipe('Idea');

/** docs/platform.md §9 elaboration of an idea; every mutation publishes `idea updated`. */
@ApiTags('ideas')
@ApiCookieAuth('session')
@ApiParam({ name: 'uuid', format: 'uuid', description: 'Idea' })
@ApiController('api/ideas/:uuid/elaboration')
export class ElaborationController {
  constructor(private readonly elaboration: ElaborationService) {}

  @Get()
  @ApiRoute({ answer: ElaborationStateDto, summary: "An idea's elaboration rounds with questions and answers", errors: ['NOT_FOUND'] })
  get(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.elaboration.getState(actor, { ideaUuid: uuid });
  }

  @Post('rounds')
  @ApiRoute({ answer: ElaborationStateDto, created: true, summary: 'Start a round of questions (appended when the idea is already elaborated)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  start(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: StartElaborationDto) {
    return this.elaboration.start(actor, { ideaUuid: uuid, depth: body.depth, questions: body.questions });
  }

  @Post('answers')
  @HttpCode(200)
  @ApiRoute({ answer: ElaborationStateDto, summary: 'Answer questions of the pending round; it closes once every required one is answered', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  answer(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: AnswerElaborationDto) {
    return this.elaboration.answer(actor, { ideaUuid: uuid, roundUuid: body.roundUuid, answers: body.answers });
  }

  @Post('resolve')
  @HttpCode(200)
  @ApiRoute({ answer: ElaborationStateDto, summary: 'Resolve the elaboration once every round is answered (elaborating -> elaborated)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  resolve(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string) {
    return this.elaboration.resolve(actor, { ideaUuid: uuid });
  }

  @Post('skip')
  @HttpCode(200)
  @ApiRoute({ answer: ElaborationStateDto, summary: 'Skip elaboration once a human agreed (elaborating -> elaborated, depth minimal)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  skip(@CurrentActor() actor: Actor, @Param('uuid', ideaUuid) uuid: string, @Body() body: SkipElaborationDto) {
    return this.elaboration.skip(actor, { ideaUuid: uuid, reason: body.reason });
  }
}
