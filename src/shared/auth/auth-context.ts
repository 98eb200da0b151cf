import type { Actor } from './actor.js';

/** What the auth guard resolves every authenticated request into. */
export interface AuthContext {
  via: 'session' | 'api_key';
  actor: Actor;
  companyName: string;
  /** Set for session-authenticated requests. */
  user?: { uuid: string; email: string; name: string };
  /** The session's id (not its token), for session-authenticated requests: streams belong to it. */
  sessionUuid?: string;
  /** Set for key-authenticated requests. */
  agent?: { uuid: string; name: string; ownerUuid: string };
  apiKeyUuid?: string;
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

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
    requestId?: string;
  }
}
