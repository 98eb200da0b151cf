import { Prop } from '../../../shared/validation/response-fields.js';
import type { AgentGrantSummary } from '../agent.service.js';
import type { AgentEntity } from '../identity.entity.js';
import type { LoginResult } from '../auth.service.js';

// The answers of the identity module: agents (agent.records.ts names AgentRecord and ApiKeyRecord), their keys, and
// the signed-in user.

export class AgentOwnerDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string() email: string;
}

export class AgentRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string({ description: 'developer_agent, pm_agent or admin_agent' }) preset: AgentEntity['preset'];
  @Prop.strings({ description: 'Custom permission bits on top of the preset' }) permissions: string[];
  @Prop.strings({ description: 'The preset and custom bits together' }) effectivePermissions: string[];
  @Prop.nested(AgentOwnerDto) owner: AgentOwnerDto;
  @Prop.string({ nullable: true }) lastActiveAt: string | null;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class AgentGrantSummaryDto implements AgentGrantSummary {
  @Prop.string() grantId: string;
  @Prop.string() clientName: string;
  @Prop.string() redirectHost: string;
  @Prop.string() createdAt: string;
  @Prop.string({ nullable: true }) lastUsedAt: string | null;
}

export class AgentWithGrantsDto extends AgentRecordDto {
  @Prop.list(AgentGrantSummaryDto, { description: 'The OAuth grants that act as it' }) grants: AgentGrantSummaryDto[];
}

export class AgentListDto {
  @Prop.list(AgentWithGrantsDto) agents: AgentWithGrantsDto[];
}

export class ApiKeyRecordDto {
  @Prop.string() uuid: string;
  @Prop.string({ nullable: true }) name: string | null;
  @Prop.string({ description: 'The first characters of the key, to recognise it' }) keyPrefix: string;
  @Prop.string() createdAt: string;
  @Prop.string({ nullable: true }) expiresAt: string | null;
  @Prop.string({ nullable: true }) revokedAt: string | null;
  @Prop.string({ nullable: true }) lastUsedAt: string | null;
}

export class CreatedApiKeyDto {
  @Prop.string({ description: 'The key itself (agk_…), shown only here' }) key: string;
  @Prop.nested(ApiKeyRecordDto) apiKey: ApiKeyRecordDto;
}

export class ApiKeyListDto {
  @Prop.list(ApiKeyRecordDto) keys: ApiKeyRecordDto[];
}

export class SignedInUserDto {
  @Prop.string() uuid: string;
  @Prop.string() email: string;
  @Prop.string() name: string;
}

export class CompanyRefDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
}

type SignedIn = LoginResult['data'];

/** The answer of login and of `GET /api/auth/me`. */
export class SignedInDto implements SignedIn {
  @Prop.nested(SignedInUserDto) user: SignedInUserDto;
  @Prop.nested(CompanyRefDto) company: CompanyRefDto;
}
