import { Injectable } from '@nestjs/common';
import { AccessTokenResolver, type AuthContext } from '../../shared/auth/auth-context.js';
import { agentAuthContext } from '../identity/index.js';
import { OAuthGrantRepository } from './oauth-grant.repository.js';
import { OAuthServer } from './oauth-server.js';

const TOUCH_INTERVAL_MS = 60_000;

/**
 * The tool endpoint's check of an OAuth access token (docs/platform.md §2.5): the token must exist, be unexpired and
 * issued for this endpoint (its audience), and its grant must still be bound to a live agent — which it then acts as,
 * with the agent's permissions re-read on every request exactly as for a key. Revoking the grant deletes the token
 * and the binding; archiving the agent fails the join: either stops the token at once.
 */
@Injectable()
export class OAuthTokens extends AccessTokenResolver {
  private readonly touching = new Set<string>();

  constructor(
    private readonly server: OAuthServer,
    private readonly grants: OAuthGrantRepository,
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
    const row = await this.grants.credential(token.grantId);
    if (!row) return null;
    await this.touch(token.grantId, row.last_used_at);
    return agentAuthContext(row, { via: 'oauth', grantId: token.grantId });
  }

  /** `lastUsedAt` of the grant, written at most once a minute (as for keys). */
  private async touch(grantId: string, last: Date | null): Promise<void> {
    if ((last && Date.now() - last.getTime() <= TOUCH_INTERVAL_MS) || this.touching.has(grantId)) return;
    this.touching.add(grantId);
    try {
      await this.grants.touch(grantId);
    } finally {
      this.touching.delete(grantId);
    }
  }
}
