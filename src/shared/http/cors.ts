import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';

/** What a browser page may send: the tool endpoint's protocol headers and the streams' resume header included. */
export const ALLOWED_HEADERS = 'Content-Type, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID';

/**
 * CORS through Nest's own `enableCors` (the `cors` package), for the origins of CORS_ORIGINS only (README "Web REST
 * API"): their answers carry `Access-Control-Allow-Origin: <origin>`, `…-Credentials: true` and `Vary: Origin`, their
 * preflights answer 204 with the methods and headers a page may use. Any other origin is passed on untouched — no
 * CORS header, and its preflight reaches the routes like any OPTIONS request.
 */
export function corsOptions(corsOrigins: readonly string[]): CorsOptions {
  const allowed = new Set(corsOrigins);
  return {
    origin: (origin, done) => done(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    methods: 'GET, POST, PUT, PATCH, DELETE',
    allowedHeaders: ALLOWED_HEADERS,
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
}
