import type { NextFunction, Request, Response } from 'express';

/** What a browser page may send: the tool endpoint's protocol headers and the streams' resume header included. */
export const ALLOWED_HEADERS = 'Content-Type, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID';

/** platform.md §2.2: only origins listed in CORS_ORIGINS get CORS headers; their preflights answer 204. */
export function corsMiddleware(corsOrigins: readonly string[]) {
  const allowed = new Set(corsOrigins);
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin && allowed.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.append('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  };
}
