import type { Actor } from './actor.js';

/** What the auth guard resolves every authenticated request into. */
export interface AuthContext {
  via: 'session' | 'api_key' | 'oauth';
  actor: Actor;
  companyName: string;
  /** Set for session-authenticated requests. */
  user?: { uuid: string; email: string; name: string };
  /** The session's id (not its token), for session-authenticated requests: streams belong to it. */
  sessionUuid?: string;
  /** Set for key-authenticated requests. */
  agent?: { uuid: string; name: string; ownerUuid: string };
  apiKeyUuid?: string;
  /** Set for OAuth-authenticated tool calls (docs/platform.md §2.5): the grant the token belongs to. */
  grantId?: string;
}

export type AuthMode = 'public' | 'session' | 'session_or_key' | 'sse';

export const AUTH_MODE_KEY = 'svc:auth-mode';

/**
 * Resolves credentials into an AuthContext. Implemented by the identity module; declared here so the shared guard
 * depends on a port, not on a module.
 */
export abstract class CredentialResolver {
  /** Null when the token is unknown or expired. May return a renewed cookie token lifetime. */
  abstract resolveSession(token: string): Promise<{ context: AuthContext; renew: boolean } | null>;
  abstract resolveApiKey(rawKey: string): Promise<AuthContext | null>;
}

/**
 * OAuth access tokens of the tool endpoint (docs/platform.md §2.5), resolved to the agent their grant is bound to. The
 * oauth module provides it; without `PUBLIC_URL` it resolves nothing and names no metadata.
 */
export abstract class AccessTokenResolver {
  /** The agent's context for a token issued for the tool endpoint and still valid, else null. */
  abstract resolveAccessToken(token: string): Promise<AuthContext | null>;
  /** The protected-resource metadata URL for `WWW-Authenticate` (null when OAuth is off). */
  abstract get resourceMetadataUrl(): string | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
    requestId?: string;
  }
}
