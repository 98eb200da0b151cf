import express, { type NextFunction, type Request, type Response } from 'express';
import { BadRequestError } from '../errors/app-error.js';

export const BODY_LIMIT = '1mb';

const jsonParser = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], strict: false });

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * JSON bodies up to 1 MiB. REST routes refuse a body that is not JSON (400 BAD_REQUEST) instead of silently
 * ignoring it; the tool endpoint does its own content-type negotiation (415).
 */
export function jsonBody() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const isMcp = req.path === '/api/mcp';
    if (!isMcp && req.path.startsWith('/api/') && hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
      next(new BadRequestError('Request body must be JSON (Content-Type: application/json)'));
      return;
    }
    jsonParser(req, res, next);
  };
}
