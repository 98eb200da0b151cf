import { Delete, Get, Param } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ApiEnvelope } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { GrantListDto, GrantRevokedDto } from './dto/grant-record.dto.js';
import { OAuthGrants } from './oauth-grants.js';

/** An agent's OAuth grants, for its owner (docs/platform.md §2.5): which apps act as it, and their revocation. */
@ApiController('api/agents/:uuid/grants')
export class GrantsController {
  constructor(private readonly grants: OAuthGrants) {}

  @Get()
  @ApiEnvelope(GrantListDto)
  async list(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Agent')) uuid: string) {
    return { grants: await this.grants.list({ companyUuid: actor.companyUuid, userUuid: actor.uuid }, uuid) };
  }

  @Delete(':grantId')
  @ApiEnvelope(GrantRevokedDto)
  revoke(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Agent')) uuid: string, @Param('grantId') grantId: string) {
    return this.grants.revoke({ companyUuid: actor.companyUuid, userUuid: actor.uuid }, uuid, grantId);
  }
}
