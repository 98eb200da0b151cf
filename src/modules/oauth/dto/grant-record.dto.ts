import { Prop } from '../../../shared/validation/response-fields.js';
import type { GrantRecord } from '../oauth-grants.js';

// The answers of an agent's grant routes (README "Connecting by URL alone (OAuth)").

export class GrantRecordDto implements GrantRecord {
  @Prop.string() grantId: string;
  @Prop.string() agentUuid: string;
  @Prop.string() clientId: string;
  @Prop.string() clientName: string;
  @Prop.string() redirectHost: string;
  @Prop.string() createdAt: string;
  @Prop.string({ nullable: true }) lastUsedAt: string | null;
}

export class GrantListDto {
  @Prop.list(GrantRecordDto) grants: GrantRecordDto[];
}

export class GrantRevokedDto {
  @Prop.string() grantId: string;
  @Prop.boolean({ description: 'Always true' }) revoked: true;
}
