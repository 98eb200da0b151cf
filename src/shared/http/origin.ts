import type { Request } from 'express';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isMutation(method: string): boolean {
  return MUTATIONS.has(method.toUpperCase());
}

/** The service's own origin: PUBLIC_URL's origin, else the request's scheme and Host. */
export function ownOrigin(req: Request, publicOrigin: string | null): string | null {
  if (publicOrigin) return publicOrigin;
  const host = req.headers.host;
  if (!host) return null;
  return `${req.protocol}://${host}`;
}

/** docs/platform.md §2.2: absent Origin passes; otherwise it must be our own or listed in CORS_ORIGINS. */
export function originAllowed(req: Request, publicOrigin: string | null, corsOrigins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origin === ownOrigin(req, publicOrigin)) return true;
  return corsOrigins.includes(origin);
}
