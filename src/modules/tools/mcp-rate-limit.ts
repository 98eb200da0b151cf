import type { ThrottlerGenerateKeyFunction, ThrottlerGetTrackerFunction } from '@nestjs/throttler';
import type { Request } from 'express';
import type { AppThrottler } from '../../shared/throttling/throttling.module.js';

/** The name of the tool endpoint's throttler. */
export const MCP_THROTTLER = 'mcp';

/** The period of `MCP_RATE_LIMIT_PER_MINUTE`: a bucket of that many requests refills in it. */
const WINDOW_MS = 60_000;

/**
 * What the limit counts by: the API key, or the OAuth grant (a grant is an agent's credential as a key is), from the
 * credential the key guard resolved before (`req.auth`) — never the client address. No hashing: the key is the id.
 */
const byCredential: ThrottlerGetTrackerFunction = (req) => {
  const auth = (req as Request).auth!;
  return auth.apiKeyUuid ?? `grant:${auth.grantId}`;
};
/** The tracker is the key as it is (the store keeps each throttler's keys apart), instead of the package's SHA-256 of route + tracker. */
const trackerAsKey: ThrottlerGenerateKeyFunction = (_context, tracker) => tracker;

/**
 * The tool endpoint's per-credential limit (docs/deploy.md, "Abuse limits"): `MCP_RATE_LIMIT_PER_MINUTE` requests per
 * API key or OAuth grant — a burst of that many, then that many a minute (the in-process store's token bucket) —
 * counted by each instance in its own memory; none when the setting is 0.
 * Only `McpRateLimitGuard` applies it, on `POST /api/mcp`: the stock loop of any other `ThrottlerGuard` skips it.
 */
export function mcpThrottlers(perMinute: number): AppThrottler[] {
  if (perMinute <= 0) return [];
  return [
    {
      name: MCP_THROTTLER,
      limit: perMinute,
      ttl: WINDOW_MS,
      store: 'instance',
      // The 429 carries Retry-After itself (McpRateLimitGuard); no X-RateLimit-* headers, as before.
      setHeaders: false,
      skipIf: () => true,
      getTracker: byCredential,
      generateKey: trackerAsKey,
    },
  ];
}
