import { jest } from '@jest/globals';
import { NotFoundException, type ArgumentsHost } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RouteTable } from '../http/route-table.js';
import { HttpExceptionFilter } from './http-exception.filter.js';

function answer(exception: unknown, method: string, allowed: string[]) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => void (sent.headers[k] = v),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => void (sent.body = body),
  };
  const req = { method, path: '/api/things/1' };
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  const routes = { methodsFor: () => allowed } as unknown as RouteTable;
  const logger = { warn: jest.fn(), error: jest.fn() } as unknown as Logger;
  new HttpExceptionFilter(logger, routes).catch(exception, host);
  return sent;
}

describe('HttpExceptionFilter: 404 and 405', () => {
  it('answers 405 with Allow when the path is known but the method is not', () => {
    const sent = answer(new NotFoundException(), 'DELETE', ['GET', 'HEAD']);
    expect(sent.status).toBe(405);
    expect(sent.headers.Allow).toBe('GET, HEAD');
    expect(sent.body).toEqual({ success: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'Method DELETE not allowed' } });
  });

  it('answers 404 for a path no route matches', () => {
    const sent = answer(new NotFoundException(), 'GET', []);
    expect(sent.status).toBe(404);
    expect(sent.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found' } });
  });

  it('keeps a 404 thrown by a handler whose route answers this method a 404, not a 405', () => {
    const sent = answer(new NotFoundException('gone'), 'GET', ['GET', 'HEAD']);
    expect(sent.status).toBe(404);
    expect(sent.headers.Allow).toBeUndefined();
    expect(sent.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
});
