import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessTokenResolver, type AuthContext } from '../../shared/auth/auth-context.js';
import { agentAuthContext, type AgentCredentialRow } from '../identity/index.js';
import { OAuthServer } from './oauth-server.js';

const TOUCH_INTERVAL_MS = 60_000;

interface GrantRow extends AgentCredentialRow {
  last_used_at: Date | null;
}

/**
 * The tool endpoint's check of an OAuth access token (platform.md §2.5): the token must exist, be unexpired and
 * issued for this endpoint (its audience), and its grant must still be bound to a live agent — which it then acts as,
 * with the agent's permissions re-read on every request exactly as for a key. Revoking the grant deletes the token
 * and the binding; archiving the agent fails the join: either stops the token at once.
 */
@Injectable()
export class OAuthTokens extends AccessTokenResolver {
  private readonly touching = new Set<string>();

  constructor(
    private readonly server: OAuthServer,
    private readonly db: DataSource,
  ) {
    super();
  }

  get resourceMetadataUrl(): string | null {
    return this.server.enabled ? this.server.resourceMetadataUrl : null;
  }

  async resolveAccessToken(raw: string): Promise<AuthContext | null> {
    const provider = this.server.provider;
    if (!provider || raw.length > 512) return null;
    const token = await provider.AccessToken.find(raw);
    if (!token?.grantId) return null;
    const audience = Array.isArray(token.aud) ? token.aud : [token.aud];
    if (audience.length !== 1 || audience[0] !== this.server.resource) return null;
    const [row]: GrantRow[] = await this.db.query(
      `SELECT g.last_used_at, a.uuid AS agent_uuid, a.name AS agent_name, a.owner_uuid, a.preset, a.permissions,
              c.uuid AS company_uuid, c.name AS company_name
         FROM oauth_grant g JOIN agent a ON a.uuid = g.agent_uuid AND a.company_uuid = g.company_uuid
         JOIN company c ON c.uuid = a.company_uuid
        WHERE g.grant_id = $1 AND a.archived_at IS NULL`,
      [token.grantId],
    );
    if (!row) return null;
    await this.touch(token.grantId, row.last_used_at);
    return agentAuthContext(row, { via: 'oauth', grantId: token.grantId });
  }

  /** `lastUsedAt` of the grant, written at most once a minute (as for keys). */
  private async touch(grantId: string, last: Date | null): Promise<void> {
    if ((last && Date.now() - last.getTime() <= TOUCH_INTERVAL_MS) || this.touching.has(grantId)) return;
    this.touching.add(grantId);
    try {
      await this.db.query(`UPDATE oauth_grant SET last_used_at = now() WHERE grant_id = $1`, [grantId]);
    } finally {
      this.touching.delete(grantId);
    }
  }
}
