import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import type { InboxAnswer } from './inbox-answer.js';
import { etagMatches, InboxCacheInterceptor } from './inbox-cache.interceptor.js';

/** A response that records what the interceptor sets. */
function exchange(ifNoneMatch?: string) {
  const headers: Record<string, string> = {};
  const vary: string[] = [];
  const res = {
    statusCode: 200,
    setHeader: (k: string, v: string) => void (headers[k] = v),
    vary: (v: string) => void vary.push(v),
    status(code: number) {
      this.statusCode = code;
      return this;
    },
  };
  const req = { headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } };
  const ctx = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ExecutionContext;
  return { ctx, res, headers, vary };
}

const run = (ctx: ExecutionContext, a: InboxAnswer): Promise<unknown> =>
  lastValueFrom(new InboxCacheInterceptor().intercept(ctx, { handle: () => of(a) } as CallHandler<InboxAnswer>));

describe('InboxCacheInterceptor (docs/notifications.md §2.0, §3)', () => {
  it('compares If-None-Match weakly, accepts lists and *', () => {
    expect(etagMatches('"a"', '"a"')).toBe(true);
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches('"b", "a"', '"a"')).toBe(true);
    expect(etagMatches('*', '"a"')).toBe(true);
    expect(etagMatches('"b"', '"a"')).toBe(false);
    expect(etagMatches(undefined, '"a"')).toBe(false);
    expect(etagMatches('', '"a"')).toBe(false);
  });

  it('a matching tag is a 304 with the cache headers, and the body is never read', async () => {
    const { ctx, res, headers, vary } = exchange('W/"list-3-x"');
    let read = false;
    const out = await run(ctx, { kind: 'tagged', tag: '"list-3-x"', position: 'e-4', pollAfterSeconds: 2, body: async () => ((read = true), { n: 1 }) });
    expect([res.statusCode, out, read]).toEqual([304, null, false]);
    expect(headers).toEqual({ 'X-Poll-Interval': '2', ETag: '"list-3-x"', 'X-Stream-Position': 'e-4', 'Cache-Control': 'private, no-cache' });
    expect(vary).toEqual(['Cookie', 'Authorization']);
  });

  it('otherwise the body, then the cache headers (a count has no poll interval)', async () => {
    const { ctx, res, headers } = exchange('"other"');
    expect(await run(ctx, { kind: 'tagged', tag: '"count-1-x"', position: 'e-1', pollAfterSeconds: null, body: async () => ({ count: 1 }) })).toEqual({ count: 1 });
    expect(res.statusCode).toBe(200);
    expect(headers).toEqual({ ETag: '"count-1-x"', 'X-Stream-Position': 'e-1', 'Cache-Control': 'private, no-cache' });
  });

  it('a body that fails leaves no tag on the error', async () => {
    const { ctx, headers } = exchange();
    await expect(run(ctx, { kind: 'tagged', tag: '"list-1-x"', position: 'e-1', pollAfterSeconds: 2, body: () => Promise.reject(new Error('db down')) })).rejects.toThrow('db down');
    expect(headers).toEqual({ 'X-Poll-Interval': '2' });
  });

  it('a delta is never cached, whatever If-None-Match says', async () => {
    const { ctx, res, headers, vary } = exchange('*');
    const delta = { notifications: [], position: 'e-9', unreadCount: 0 };
    expect(await run(ctx, { kind: 'delta', position: 'e-9', pollAfterSeconds: 0, body: delta })).toBe(delta);
    expect(res.statusCode).toBe(200);
    expect(headers).toEqual({ 'Cache-Control': 'no-store', 'X-Stream-Position': 'e-9', 'X-Poll-Interval': '0' });
    expect(vary).toEqual([]);
  });
});
