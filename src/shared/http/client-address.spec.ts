import express from 'express';
import type { Request } from 'express';
import { clientAddress, limitKey, plainAddress, proxyTrust } from './client-address.js';

/** A request as Express's own `req.ip` resolves it under the app's `trust proxy` setting. */
function request(trustProxy: string[], socket: string, forwardedFor?: string): Request {
  const app = express();
  app.set('trust proxy', proxyTrust(trustProxy));
  const req = Object.create(app.request) as Request;
  Object.assign(req, { app, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: socket }, connection: { remoteAddress: socket } });
  return req;
}

describe('client address (TRUST_PROXY)', () => {
  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(proxyTrust([])).toBe(false);
    expect(clientAddress(request([], '203.0.113.9', '198.51.100.1'))).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For from a socket that is not a trusted proxy', () => {
    expect(clientAddress(request(['127.0.0.1'], '127.0.0.2', '198.51.100.1'))).toBe('127.0.0.2');
  });

  it('takes the right-most untrusted hop when the socket is a trusted proxy', () => {
    // The client's own header comes first; the proxy appended the address it saw.
    expect(clientAddress(request(['127.0.0.1'], '127.0.0.1', '6.6.6.6, 198.51.100.7'))).toBe('198.51.100.7');
    // Several trusted hops (a load balancer in front of nginx) are skipped.
    expect(clientAddress(request(['127.0.0.1', '10.0.0.0/8'], '127.0.0.1', '6.6.6.6, 198.51.100.7, 10.1.2.3'))).toBe('198.51.100.7');
    expect(clientAddress(request(['10.0.0.0/8'], '::ffff:10.0.0.5', '2001:db8::42'))).toBe('2001:db8::42');
  });

  it('counts a hop that is not an address as the proxy itself, so it cannot escape a limit', () => {
    expect(clientAddress(request(['127.0.0.1'], '127.0.0.1', 'garbage'))).toBe('127.0.0.1');
  });

  it('never throws for a socket that has closed (no address left): the trust test refuses it', () => {
    const trust = proxyTrust(['127.0.0.1']) as (a: string | undefined) => boolean;
    expect(trust(undefined)).toBe(false);
    const closed = request(['127.0.0.1'], undefined as unknown as string, '198.51.100.7');
    expect(clientAddress(closed)).toBe('unknown');
    expect(clientAddress(request([], undefined as unknown as string))).toBe('unknown');
  });

  it('shows a dual-stack socket IPv4 peer as plain IPv4', () => {
    expect(plainAddress('::ffff:192.0.2.4')).toBe('192.0.2.4');
    expect(clientAddress(request([], '::ffff:192.0.2.4'))).toBe('192.0.2.4');
    expect(proxyTrust(['192.0.2.0/24'])).not.toBe(false);
    expect((proxyTrust(['192.0.2.0/24']) as (a: string) => boolean)('::ffff:192.0.2.4')).toBe(true);
  });

  it('limits IPv6 clients by their /64 and IPv4 clients by their address', () => {
    expect(limitKey('2001:db8:1:2:aaaa::1')).toBe(limitKey('2001:db8:1:2:bbbb::2'));
    expect(limitKey('2001:db8:1:3::1')).not.toBe(limitKey('2001:db8:1:2::1'));
    expect(limitKey('198.51.100.7')).toBe('198.51.100.7');
  });
});
