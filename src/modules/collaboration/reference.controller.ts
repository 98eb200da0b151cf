import { Body, Delete, Param, Patch, Post } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AddReferenceDto, UpdateReferenceDto } from './dto/collaboration.dto.js';
import { ReferenceService } from './reference.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ReferenceRecordDto } from './dto/collaboration-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const referenceUuid = new UuidParamPipe('Reference');

/** docs/platform.md §9 references: every write publishes `<targetType> updated` of the target. */
@ApiTags('references')
@ApiCookieAuth('session')
@ApiController('api/references')
export class ReferenceController {
  constructor(private readonly references: ReferenceService) {}

  @Post()
  @ApiRoute({ answer: ReferenceRecordDto, created: true, summary: 'Attach an external link to an idea, proposal or task (never fetched)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  add(@CurrentActor() actor: Actor, @Body() body: AddReferenceDto) {
    return this.references.add(actor, body);
  }

  @Patch(':uuid')
  @ApiRoute({ answer: ReferenceRecordDto, summary: "Change a reference's type, URL, title or notes (null clears the notes)", errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  update(@CurrentActor() actor: Actor, @Param('uuid', referenceUuid) uuid: string, @Body() body: UpdateReferenceDto) {
    return this.references.update(actor, { ...body, referenceUuid: uuid });
  }

  @Delete(':uuid')
  @ApiRoute({ answer: DeletedDto, summary: 'Delete a reference', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  remove(@CurrentActor() actor: Actor, @Param('uuid', referenceUuid) uuid: string) {
    return this.references.remove(actor, { referenceUuid: uuid });
  }
}
