import { BlockList, isIP } from 'node:net';
import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:1.2.3.4` (a dual-stack socket's view of an IPv4 peer) → `1.2.3.4`; a zone id (`%eth0`) dropped. */
export function plainAddress(address: string): string {
  const bare = address.split('%')[0];
  return MAPPED_V4.exec(bare)?.[1] ?? bare;
}

/**
 * The test Express's `trust proxy` setting applies to the socket's address and then to each `X-Forwarded-For` hop,
 * right to left, stopping at the first it does not trust (docs/deploy.md, "Client address"). `entries` are
 * TRUST_PROXY's validated addresses and CIDRs; none: `false`, the header is never read.
 */
export function proxyTrust(entries: readonly string[]): ((address: string | undefined) => boolean) | false {
  if (!entries.length) return false;
  const trusted = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  return (address: string | undefined): boolean => {
    // A socket already closed has no address left (proxy-addr passes it on as it is).
    if (typeof address !== 'string') return false;
    const plain = plainAddress(address);
    const family = isIP(plain);
    // A hop that is not an address is never a proxy of ours: the walk stops there.
    return family !== 0 && trusted.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  };
}

const RESOLVED = Symbol('clientAddress');

/**
 * The request's client address: Express's `req.ip` under the trust above — the socket's address, or, when the
 * socket is a trusted proxy, the right-most `X-Forwarded-For` hop that is not itself trusted. Every per-source limit
 * and the access log use it. Only a client inside the trusted ranges can put a hop there that is not an address;
 * such a request counts as the socket's peer (the proxy), so it never escapes a limit. Resolved once, when the
 * request arrives (the access log calls it first): a socket that has closed since has no address any more.
 */
export function clientAddress(req: Request): string {
  const memo = req as Request & { [RESOLVED]?: string };
  if (memo[RESOLVED] !== undefined) return memo[RESOLVED];
  const ip = plainAddress(req.ip ?? '');
  const resolved = isIP(ip) ? ip : plainAddress(req.socket?.remoteAddress ?? '') || 'unknown';
  memo[RESOLVED] = resolved;
  return resolved;
}

/**
 * What per-source limits count by: an IPv4 address as it is, an IPv6 one by its /64 (a single host is commonly given
 * a whole /64, so counting single IPv6 addresses would not limit anyone) — the rule of `@nestjs/throttler`'s own
 * tracker.
 */
export function limitKey(address: string): string {
  return normalizeIp(address, 64);
}
