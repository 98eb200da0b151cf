import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isTaskAugmentedRequestParams,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/config.js';
import { CredentialResolver } from '../../shared/auth/auth-context.js';
import { isDatabaseUnavailable } from '../../shared/errors/app-error.js';
import { TokenBuckets } from '../../shared/http/token-bucket.js';
import { LOGGER, requestContext } from '../../shared/logging/logger.js';
import { SingleRequestTransport } from './mcp-transport.js';
import { ToolRegistry, UnknownToolError } from './tool-registry.js';
import type { ToolContext } from './tool.decorator.js';

const SERVER_INFO = { name: 'svc', version: '1.0.0' };
/**
 * Shared by every per-request server: the SDK otherwise builds a fresh Ajv instance per Server (~0.8 ms of CPU per
 * request). It only validates elicitation answers, which this server never asks for.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
const JSON_TYPE = 'application/json; charset=utf-8';

/** A serialized answer: a string, or chunks written as one (the cached catalogue is not copied per request). */
export type Body = string | Buffer[];

/**
 * The request schemas of the methods the per-request server answers. The SDK parses a request against its schema
 * inside the handler and reports a violation as -32603 "Internal error" with the validator's dump as the message;
 * `dispatch` checks first and answers -32602 "Invalid params" instead (platform.md §4, JSON-RPC 2.0).
 */
const REQUEST_SCHEMAS = new Map<string, { safeParse(v: unknown): { success: boolean } }>([
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
]);

/** Stands for the cached catalogue JSON while the rest of a tools/list answer is serialized. */
const TOOLS_PLACEHOLDER = 'svc-cached-tools-5b0f6c1e-3d2a-4e8b-9c71-0a4f2d6e8b13';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON-RPC message exactly as the SDK's Protocol classifies it (its schemas are strict: a request carrying a
 * `result`, an integer-less id or a stray member is none of the four kinds). Anything else is refused up front:
 * the Protocol would only report it to `onerror` and never answer, leaving the HTTP request hanging.
 */
function isJsonRpcMessage(body: unknown): body is JSONRPCMessage {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return false;
  return isJSONRPCRequest(body) || isJSONRPCNotification(body) || isJSONRPCResultResponse(body) || isJSONRPCErrorResponse(body);
}

/**
 * `POST /api/mcp` (platform.md §4): stateless MCP over Streamable HTTP with plain JSON responses. Each request
 * authenticates its key and recomputes the agent's permissions from the database.
 *
 * Served as an Express middleware ahead of Nest's router (bootstrap.ts), because the router's guard / interceptor /
 * filter pipeline cost ~200 µs per request (BENCHMARKS.md "MCP"), and ahead of the other layers, whose matching
 * allocated ~5 KB per request. What that pipeline gave the route is done here:
 * the route is public (the key is checked below), the body is written raw, and every failure is answered as the
 * exception filter would (503 -32003 when the database is unreachable, else 500 -32603 with a logged errorId).
 * The request id, access log line and latency metric come from the requestLogging middleware, which runs first.
 *
 * Every JSON-RPC message is served by a fresh low-level SDK server bound to the caller's context, over the tool list,
 * schemas and validators the registry prepared at boot.
 */
@Injectable()
export class McpEndpoint {
  /** Per API key, per instance; null when MCP_RATE_LIMIT_PER_MINUTE is 0. */
  private readonly limiter: TokenBuckets | null;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly credentials: CredentialResolver,
    @Inject(LOGGER) private readonly logger: Logger,
    config: AppConfig,
  ) {
    this.limiter = config.mcpRateLimitPerMinute > 0 ? new TokenBuckets(config.mcpRateLimitPerMinute) : null;
  }

  /**
   * The Express middleware for `app.use('/api/mcp', …)`, mounted ahead of every other layer: a POST on the path itself
   * runs `before` (the application's own global middlewares: request logging, CORS, body parsing — so the request is
   * logged, measured and parsed exactly as any other) and then the endpoint, without walking the router's other
   * layers; an error from `before` goes on to the application's error handling (the exception filter). Anything
   * else passes through untouched to the regular stack.
   */
  middleware(before: RequestHandler[] = [], parseBody?: RequestHandler): (req: Request, res: Response, next: NextFunction) => void {
    return (req, res, next) => {
      if (req.method !== 'POST' || req.path !== '/') {
        next();
        return;
      }
      let i = 0;
      const step = (err?: unknown): void => {
        if (err !== undefined && err !== null && err !== 'route' && err !== 'router') {
          next(err);
          return;
        }
        const handler = before[i++];
        if (!handler) {
          void this.handle(req, res, parseBody, next);
          return;
        }
        try {
          void handler(req, res, step);
        } catch (e) {
          next(e);
        }
      };
      step();
    };
  }

  /**
   * Never rejects: every failure becomes a JSON-RPC error answer. `parseBody` (the JSON body parser) runs only once
   * the caller is authenticated and the media types are right — authentication comes before everything else
   * (platform.md §4) — and its errors (malformed JSON, too deep, too large) go to `next`, the application's error
   * handling, as on every other route.
   */
  async handle(req: Request, res: Response, parseBody?: RequestHandler, next?: NextFunction): Promise<void> {
    try {
      await this.serve(req, res, parseBody, next);
    } catch (err) {
      this.fail(res, err);
    }
  }

  private async serve(req: Request, res: Response, parseBody?: RequestHandler, next?: NextFunction): Promise<void> {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const auth = bearer ? await this.credentials.resolveApiKey(bearer[1]) : null;
    if (!auth) {
      rpcError(res, 401, -32001, 'Missing or invalid API key', { 'WWW-Authenticate': 'Bearer realm="svc"' });
      return;
    }
    const store = requestContext.getStore();
    if (store) {
      store.companyUuid = auth.actor.companyUuid;
      store.actor = `agent:${auth.actor.uuid}`;
    }
    // After authentication (an unknown key stays a 401 and has no bucket), before anything else is looked at.
    const wait = this.limiter && auth.apiKeyUuid ? this.limiter.take(auth.apiKeyUuid) : 0;
    if (wait > 0) {
      rpcError(res, 429, RATE_LIMITED_RPC_CODE, 'Too many requests', { 'Retry-After': String(wait) }, { code: 'RATE_LIMITED', retryAfterSeconds: wait });
      return;
    }
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      rpcError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      return;
    }
    if (!req.is('application/json')) {
      rpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    if (parseBody) {
      const parseError = await new Promise<unknown>((resolve) => void parseBody(req, res, resolve));
      if (parseError) {
        if (next) next(parseError);
        else throw parseError;
        return;
      }
    }
    const body: unknown = req.body;
    if (Array.isArray(body)) {
      rpcError(res, 400, -32600, 'Invalid Request: batch requests are not supported');
      return;
    }
    if (!isJsonRpcMessage(body)) {
      rpcError(res, 400, -32600, 'Invalid Request');
      return;
    }
    const answer = await this.dispatch(body, { actor: auth.actor, auth, headers: req.headers, requestId: req.requestId });
    if (answer === null) {
      res.status(202).end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', JSON_TYPE);
    if (typeof answer === 'string') {
      res.setHeader('Content-Length', Buffer.byteLength(answer));
      res.end(answer);
      return;
    }
    res.setHeader('Content-Length', answer.reduce((n, b) => n + b.length, 0));
    // Corked: headers and every chunk leave in one write (end() uncorks).
    res.cork();
    for (let i = 0; i < answer.length - 1; i++) res.write(answer[i]);
    res.end(answer[answer.length - 1]);
  }

  /** The serialized JSON-RPC answer to one message, or null for a notification or response (HTTP 202). */
  async dispatch(message: JSONRPCMessage, ctx: ToolContext): Promise<Body | null> {
    const malformed = await this.malformedParams(message, ctx);
    if (malformed !== null) return malformed;
    // Every request, including tools/list and tools/call, is served by a fresh low-level SDK server bound to the
    // caller (service-spec "Tool endpoint" 1); what is prepared once is the registry it reads from.
    return this.viaSdk(message, ctx);
  }

  /**
   * The answer to a request whose params its method's schema refuses, or null when they are fine. A `tools/call` of
   * a tool the caller holds whose `arguments` is not an object is a call with invalid arguments: the tool's
   * VALIDATION_ERROR result (tools.md §1.4), not a JSON-RPC error.
   */
  private async malformedParams(message: JSONRPCMessage, ctx: ToolContext): Promise<string | null> {
    if (!('method' in message) || !('id' in message)) return null;
    // Task augmentation (`params.task`): the server declares no tasks capability, and the SDK would refuse it as -32603.
    if (isTaskAugmentedRequestParams(message.params) && message.params.task !== undefined) {
      return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: 'Invalid params: task-augmented requests are not supported' } });
    }
    const schema = REQUEST_SCHEMAS.get(message.method);
    if (!schema || schema.safeParse(message).success) return null;
    const params = message.params as Record<string, unknown> | undefined;
    if (message.method === 'tools/call' && isPlainObject(params) && typeof params.name === 'string' && !isPlainObject(params.arguments)) {
      try {
        const result = await this.registry.call(this.registry.find(params.name, ctx.actor.permissions), params.arguments, ctx);
        return JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
      } catch (err) {
        if (!(err instanceof UnknownToolError)) throw err;
        return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: err.message } });
      }
    }
    return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: 'Invalid params' } });
  }

  /** The SDK's own handling, for everything the fast paths leave alone (and as their reference in tests). */
  async viaSdk(message: JSONRPCMessage, ctx: ToolContext): Promise<string | null> {
    const transport = new SingleRequestTransport();
    const server = this.createServer(ctx);
    await server.connect(transport);
    // Whatever the Protocol drops instead of answering ends the request as an error rather than leaving it open.
    server.onerror = (err) => transport.abandon(err);
    // The server is dropped, not closed: close() only aborts handlers that already answered and builds a
    // "Connection closed" error with a stack trace for nobody (~5 % of a request's CPU).
    const response = await transport.dispatch(message);
    if (response === null) return null;
    // The server answered tools/list with the registry's cached list for this permission set: splice in that list's
    // cached JSON rather than serializing the whole catalogue (tens of kilobytes) again for every request.
    const result = (response as { result?: Record<string, unknown> }).result;
    const tools = this.registry.list(ctx.actor.permissions);
    if (result && result.tools === tools && Object.keys(result).length === 1) {
      return JSON.stringify({ ...response, result: { tools: TOOLS_PLACEHOLDER } }).replace(`"${TOOLS_PLACEHOLDER}"`, () => this.registry.listJson(ctx.actor.permissions));
    }
    return JSON.stringify(response);
  }

  private createServer(ctx: ToolContext): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, jsonSchemaValidator: JSON_SCHEMA_VALIDATOR });
    const permissions = ctx.actor.permissions;
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.registry.list(permissions) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      try {
        const tool = this.registry.find(request.params.name, permissions);
        return await this.registry.call(tool, request.params.arguments, ctx);
      } catch (err) {
        // Not McpError: it prefixes "MCP error -32602: ", and the contract's message is exactly "Unknown tool: <name>".
        if (err instanceof UnknownToolError) throw Object.assign(new Error(err.message), { code: ErrorCode.InvalidParams });
        throw err;
      }
    });
    return server;
  }

  /** What the exception filter answers on this path, so the route never answers a bare 500. */
  private fail(res: Response, err: unknown): void {
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const describe = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { value: String(err) };
    if (isDatabaseUnavailable(err)) {
      this.logger.warn({ err: describe }, 'database unavailable');
      rpcError(res, 503, -32003, 'Service unavailable', { 'Retry-After': '5' });
      return;
    }
    const errorId = randomUUID();
    this.logger.error({ errorId, err: describe }, 'unhandled error');
    rpcError(res, 500, ErrorCode.InternalError, 'Internal server error');
  }
}

/** JSON-RPC code of the 429 answer; `error.data.code` carries the service's error code `RATE_LIMITED`. */
export const RATE_LIMITED_RPC_CODE = -32029;

function rpcError(res: Response, status: number, code: number, message: string, headers: Record<string, string> = {}, data?: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ jsonrpc: '2.0', error: data ? { code, message, data } : { code, message }, id: null });
}

/** The controller's 405 answer for GET and DELETE. */
export function methodNotAllowed(res: Response): void {
  rpcError(res, 405, -32000, 'Method not allowed', { Allow: 'POST' });
}
