import express, { type NextFunction, type Request, type Response } from 'express';
import { BadRequestError } from '../errors/app-error.js';

export const BODY_LIMIT = '1mb';

/** The tool endpoint's path as the router matches it (case-insensitive, optional trailing slash). */
const MCP_PATH = /^\/api\/mcp\/?$/i;
/** The SSE streams: they read no body, and answer their errors in plain text (docs/platform.md §6.2). */
const EVENTS_PATH = /^\/api\/events(\/|$)/i;
/** The authorization server parses its own bodies; its pages take form posts (docs/platform.md §2.5). */
const OAUTH_PATH = /^\/(oauth|\.well-known)(\/|$)/i;

/**
 * Deepest nesting of arrays/objects a JSON body may have. JSON.parse accepts any depth, but the recursive layers
 * after it (class-transformer, class-validator, schema validation) overflow the stack on a body nested a few
 * thousand levels deep; no input of the API nests more than a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

const jsonParser = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], strict: false });

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** True when `value` nests arrays/objects deeper than `max` levels (iterative: safe on any depth). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * JSON bodies up to 1 MiB and MAX_JSON_DEPTH levels. REST routes refuse a body that is not JSON (400 BAD_REQUEST)
 * instead of silently ignoring it. Not for `/api/mcp`, which reads its body only after authenticating (415 / 413 / -32700),
 * nor for the streams, which ignore a body (a stray one must not turn their plain-text answers into JSON errors).
 */
export function jsonBody() {
  return (req: Request, res: Response, next: NextFunction): void => {
    // The tool endpoint reads its body itself, after its key guard (docs/platform.md §4).
    if (MCP_PATH.test(req.path) || EVENTS_PATH.test(req.path) || OAUTH_PATH.test(req.path)) {
      next();
      return;
    }
    if (req.path.startsWith('/api/') && hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
      next(new BadRequestError('Request body must be JSON (Content-Type: application/json)'));
      return;
    }
    jsonParser(req, res, (err?: unknown) => {
      if (err === undefined && nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
        next(new BadRequestError(`JSON body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`));
        return;
      }
      next(err);
    });
  };
}
