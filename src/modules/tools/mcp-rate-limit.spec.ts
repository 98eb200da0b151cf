import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../../shared/clock.js';
import { InstanceThrottlerStorage } from '../../shared/throttling/instance-throttler.storage.js';
import { ThrottlerStorageRouter } from '../../shared/throttling/throttler-storage.router.js';
import { McpHttpError, RATE_LIMITED_RPC_CODE } from './mcp-errors.js';
import { MCP_THROTTLER, mcpThrottlers } from './mcp-rate-limit.js';
import { McpRateLimitGuard } from './mcp.guards.js';

class TestClock extends Clock {
  at = 5_000_000;
  now(): number {
    return this.at;
  }
}

/** The tool endpoint's context for a request authenticated by `auth` (as the key guard leaves it), or none. */
const contextOf = (auth: Record<string, unknown> | undefined): ExecutionContext =>
  ({ switchToHttp: () => ({ getRequest: () => ({ auth, headers: {} }), getResponse: () => ({}) }) }) as unknown as ExecutionContext;
const byKey = (uuid: string) => contextOf({ via: 'api_key', apiKeyUuid: uuid });
const byGrant = (grantId: string) => contextOf({ via: 'oauth', grantId });

/** Another throttler of the app, counted in its own store: the MCP guard must never touch it. */
const OTHER = { name: 'oauth-registration', limit: 1, ttl: 3_600_000 };

describe('the tool endpoint’s rate limit on @nestjs/throttler', () => {
  let clock: TestClock;
  let local: InstanceThrottlerStorage;
  const otherHits: string[] = [];

  async function guard(perMinute: number): Promise<McpRateLimitGuard> {
    const other: ThrottlerStorage = { increment: (key) => (otherHits.push(key), Promise.resolve({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 })) };
    const throttlers = [OTHER, ...mcpThrottlers(perMinute).map(({ store: _store, ...t }) => t)];
    const g = new McpRateLimitGuard({ throttlers }, new ThrottlerStorageRouter(new Map([[MCP_THROTTLER, local], [OTHER.name, other]]), local), new Reflector());
    await g.onModuleInit();
    return g;
  }

  /** The refusal of one request, or null when it passes. */
  async function refusal(g: McpRateLimitGuard, context: ExecutionContext): Promise<McpHttpError | null> {
    try {
      expect(await g.canActivate(context)).toBe(true);
      return null;
    } catch (err) {
      return err as McpHttpError;
    }
  }

  beforeEach(() => {
    clock = new TestClock();
    local = new InstanceThrottlerStorage(clock);
    otherHits.length = 0;
  });

  it('declares one in-process throttler of `limit` per 60 s (a bucket of `limit`, refilled at `limit` a minute), tracked by the credential as it is; none at 0', () => {
    expect(mcpThrottlers(0)).toEqual([]);
    const [t] = mcpThrottlers(1200);
    expect(t).toMatchObject({ name: 'mcp', limit: 1200, ttl: 60_000, store: 'instance', setHeaders: false });
    const ctx = byKey('k');
    expect(t.getTracker!({ auth: { apiKeyUuid: 'key-1' } }, ctx)).toBe('key-1');
    expect(t.getTracker!({ auth: { grantId: 'g-1' } }, ctx)).toBe('grant:g-1');
    expect(t.generateKey!(ctx, 'key-1', 'mcp')).toBe('key-1');
    // The stock loop of any other ThrottlerGuard leaves it alone.
    expect(t.skipIf!(ctx)).toBe(true);
  });

  it('refuses the request past the limit with 429, Retry-After and RATE_LIMITED; per key and per grant', async () => {
    const g = await guard(2);
    expect(await refusal(g, byKey('a'))).toBeNull();
    clock.at += 15_000;
    expect(await refusal(g, byKey('a'))).toBeNull();
    // 2 per minute: a token every 30 s; 15 s after the first request half a token is back, so the next one is 15 s away.
    const refused = await refusal(g, byKey('a'));
    expect(refused).toBeInstanceOf(McpHttpError);
    expect(refused).toMatchObject({ status: 429, rpcCode: RATE_LIMITED_RPC_CODE, message: 'Too many requests', headers: { 'Retry-After': '15' }, data: { code: 'RATE_LIMITED', retryAfterSeconds: 15 } });
    // Another key, and a grant, count on their own.
    expect(await refusal(g, byKey('b'))).toBeNull();
    expect(await refusal(g, byGrant('a'))).toBeNull();
    expect(await refusal(g, byGrant('a'))).toBeNull();
    expect((await refusal(g, byGrant('a')))?.status).toBe(429);
    // Retry-After seconds later: served again.
    clock.at += 15_000;
    expect(await refusal(g, byKey('a'))).toBeNull();
    expect(otherHits).toEqual([]);
  });

  it('counts nothing when the limit is off, or when no credential was resolved', async () => {
    const off = await guard(0);
    for (let i = 0; i < 5; i++) expect(await refusal(off, byKey('a'))).toBeNull();
    const on = await guard(1);
    for (let i = 0; i < 5; i++) expect(await refusal(on, contextOf(undefined))).toBeNull();
    expect(local.size).toBe(0);
    expect(otherHits).toEqual([]);
  });
});
