import { Body, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth } from '../../shared/auth/decorators.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { AgentService, type AgentManager } from './agent.service.js';
import { CreateAgentDto, CreateApiKeyDto, UpdateAgentDto } from './dto/agent.dto.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ApiEnvelope } from '../../shared/http/api-docs.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';
import { AgentListDto, AgentRecordDto, ApiKeyListDto, ApiKeyRecordDto, CreatedApiKeyDto } from './dto/agent-record.dto.js';

const manager = (auth: AuthContext): AgentManager => ({ companyUuid: auth.actor.companyUuid, userUuid: auth.actor.uuid });

@ApiController('api/agents')
export class AgentController {
  constructor(private readonly agents: AgentService) {}

  @Get()
  @ApiEnvelope(AgentListDto)
  async list(@CurrentAuth() auth: AuthContext) {
    return { agents: await this.agents.list(manager(auth)) };
  }

  @Post()
  @ApiEnvelope(AgentRecordDto, { created: true })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateAgentDto) {
    return this.agents.create(manager(auth), auth.actor.uuid, body);
  }

  @Get(':uuid')
  @ApiEnvelope(AgentRecordDto)
  get(@CurrentAuth() auth: AuthContext, @Param('uuid', new UuidParamPipe('Agent')) uuid: string) {
    return this.agents.get(manager(auth), uuid);
  }

  @Patch(':uuid')
  @ApiEnvelope(AgentRecordDto)
  update(@CurrentAuth() auth: AuthContext, @Param('uuid', new UuidParamPipe('Agent')) uuid: string, @Body() body: UpdateAgentDto) {
    return this.agents.update(manager(auth), uuid, body);
  }

  @Delete(':uuid')
  @ApiEnvelope(DeletedDto)
  archive(@CurrentAuth() auth: AuthContext, @Param('uuid', new UuidParamPipe('Agent')) uuid: string) {
    return this.agents.archive(manager(auth), uuid);
  }

  @Post(':uuid/keys')
  @ApiEnvelope(CreatedApiKeyDto, { created: true })
  createKey(@CurrentAuth() auth: AuthContext, @Param('uuid', new UuidParamPipe('Agent')) uuid: string, @Body() body: CreateApiKeyDto) {
    return this.agents.createKey(manager(auth), uuid, { name: body.name ?? null, expiresAt: body.expiresAt ? new Date(body.expiresAt) : null });
  }

  @Get(':uuid/keys')
  @ApiEnvelope(ApiKeyListDto)
  async listKeys(@CurrentAuth() auth: AuthContext, @Param('uuid', new UuidParamPipe('Agent')) uuid: string) {
    return { keys: await this.agents.listKeys(manager(auth), uuid) };
  }

  @Delete(':uuid/keys/:keyUuid')
  @ApiEnvelope(ApiKeyRecordDto)
  @HttpCode(200)
  revokeKey(
    @CurrentAuth() auth: AuthContext,
    @Param('uuid', new UuidParamPipe('Agent')) uuid: string,
    @Param('keyUuid', new UuidParamPipe('API key')) keyUuid: string,
  ) {
    return this.agents.revokeKey(manager(auth), uuid, keyUuid);
  }
}
