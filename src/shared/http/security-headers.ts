import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../../config/config.js';

/** 180 days: long enough to matter, short enough to back out of a broken TLS set-up. */
const HSTS_MAX_AGE_S = 180 * 24 * 3600;

/** True when the deployment says it is served over https: `COOKIE_SECURE=true` or an https `PUBLIC_URL`. */
export function servedOverHttps(config: Pick<AppConfig, 'cookieSecure' | 'publicOrigin'>): boolean {
  return config.cookieSecure || (config.publicOrigin?.startsWith('https:') ?? false);
}

/**
 * Security headers on every answer (helmet), sized for what the service serves: JSON, the Swagger UI at /api/docs,
 * SSE streams and the tool endpoint.
 *
 * - CSP: everything from the service's own origin. Swagger UI loads its scripts and stylesheet from /api/docs/*,
 *   has inline `<style>` blocks and `style` attributes (hence `'unsafe-inline'` for styles only) and data: images in
 *   its stylesheet; it fetches /api/docs.json from the same origin. Nothing may frame any page (`frame-ancestors
 *   'none'`, `X-Frame-Options: DENY`).
 * - HSTS and `upgrade-insecure-requests` only when the deployment is https (`servedOverHttps`): on plain http the
 *   first is ignored by browsers anyway and the second would break /api/docs opened by address on a LAN. HSTS leaves
 *   out `includeSubDomains`: the service cannot speak for the operator's other hosts.
 * - `Referrer-Policy: no-referrer`, `X-Content-Type-Options: nosniff`, no `X-Powered-By`.
 * - Nothing here touches `Content-Type`, caching or buffering, so `text/event-stream` answers are unaffected.
 */
export function securityHeaders(config: Pick<AppConfig, 'cookieSecure' | 'publicOrigin'>): RequestHandler {
  const https = servedOverHttps(config);
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': ["'self'"],
        'font-src': ["'self'", 'data:'],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        ...(https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE_S, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
  }) as unknown as RequestHandler;
}
