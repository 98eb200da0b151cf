import { jest } from '@jest/globals';
import type { ArgumentsHost } from '@nestjs/common';
import type { Logger } from 'pino';
import { ForbiddenError } from '../../shared/errors/app-error.js';
import type { RouteTable } from '../../shared/http/route-table.js';
import { InteractionPageFilter } from './interaction.controller.js';

function answer(exception: unknown) {
  const sent: { status?: number; type?: string; body?: string; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader(k: string, v: string) {
      sent.headers[k] = v;
      return this;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    type(t: string) {
      sent.type = t;
      return this;
    },
    send: (body: string) => void (sent.body = body),
    json: () => {
      throw new Error('a page filter never answers JSON');
    },
  };
  const req = { method: 'POST', path: '/oauth/interaction/x/consent' };
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  const routes = { methodsFor: () => ['POST'] } as unknown as RouteTable;
  const logger = { warn: jest.fn(), error: jest.fn() };
  new InteractionPageFilter(logger as unknown as Logger, routes).catch(exception, host);
  return { sent, logger };
}

describe('InteractionPageFilter: the sign-in and consent pages answer errors as pages', () => {
  it('a refusal is a page with its status, message and the pages\' headers', () => {
    const { sent } = answer(new ForbiddenError('Cross-site request refused'));
    expect([sent.status, sent.type]).toEqual([403, 'html']);
    expect(sent.body).toContain('Cross-site request refused');
    expect(sent.headers['Content-Security-Policy']).toContain("default-src 'none'");
    expect(sent.headers['Cache-Control']).toBe('no-store');
  });

  it("the authorization server's own refusal (an OAuth error code, a 4xx statusCode) is the expired sign-in page", () => {
    const { sent, logger } = answer(Object.assign(new Error('invalid_request'), { error: 'invalid_request', statusCode: 400 }));
    expect([sent.status, sent.type]).toEqual([400, 'html']);
    expect(sent.body).toContain('This sign-in has expired or is unknown');
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('a 4xx error that is not the authorization server\'s keeps the app-wide classification', () => {
    const { sent } = answer(Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413, statusCode: 413 }));
    expect([sent.status, sent.type]).toEqual([413, 'html']);
    expect(sent.body).toContain('Request body exceeds 1 MiB');
  });

  it('a lost database is a 503 page with Retry-After', () => {
    const { sent, logger } = answer(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect([sent.status, sent.type, sent.headers['Retry-After']]).toEqual([503, 'html', '5']);
    expect(sent.body).toContain('Service unavailable');
    expect(logger.warn).toHaveBeenCalled();
  });

  it('an unexpected error is a 500 page naming the errorId it logged, and nothing internal', () => {
    const { sent, logger } = answer(new Error('secret internals'));
    expect([sent.status, sent.type]).toEqual([500, 'html']);
    const logged = (logger.error.mock.calls[0] as [{ errorId: string }])[0].errorId;
    expect(sent.body).toContain(`(error ${logged})`);
    expect(sent.body).not.toContain('secret internals');
  });
});
