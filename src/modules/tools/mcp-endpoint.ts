import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  specTypeSchemas,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Request } from 'express';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../shared/http/json-body.middleware.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { McpHttpError } from './mcp-errors.js';
import { isPlainObject, NO_NARROWING, ToolRegistry, UnknownToolError, type ToolContext, type ToolNarrowing } from '../tool-kit/index.js';

const SERVER_INFO = { name: 'svc', title: 'svc: ideas, proposals, tasks and documents', version: '1.0.0' };
/** Bodies over 1 MiB answer 413 (docs/platform.md §4). */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * One validator for every per-request server: the SDK would otherwise build a fresh one per Server. It only checks
 * elicitation answers, which this server never asks for.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
/**
 * 2026-07-28 cacheable results. A tool list depends on the caller's permissions (private), which its owner may change
 * at any moment and which apply from the very next request (docs/platform.md §4): not cached. The discovery answer is the
 * same for every caller and changes only with a deployment.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
} as const;

/**
 * The request schemas of the methods this server answers. The SDK reports a violation as -32602 with the
 * validator's dump as the message; the endpoint checks first and answers a plain "Invalid params" (JSON-RPC 2.0).
 */
interface StandardSchema {
  '~standard': { validate(value: unknown): unknown };
}
const REQUEST_SCHEMAS = new Map<string, StandardSchema>([
  ['tools/call', specTypeSchemas.CallToolRequest],
  ['tools/list', specTypeSchemas.ListToolsRequest],
  ['initialize', specTypeSchemas.InitializeRequest],
  ['ping', specTypeSchemas.PingRequest],
  ['server/discover', specTypeSchemas.DiscoverRequest],
]);
/**
 * Methods the 2026-07-28 era removed: on a modern request the SDK's handler answers them 404 -32601, so their 2025
 * schemas must not turn them into a 200 -32602 first.
 */
const LEGACY_ONLY_METHODS = new Set(['initialize', 'ping']);

/** The -32602 answer to a request whose params its method's schema refuses, else null. */
function invalidParams(body: unknown, modern: boolean): Record<string, unknown> | null {
  if (!isPlainObject(body) || typeof body.method !== 'string' || !('id' in body)) return null;
  if (modern && LEGACY_ONLY_METHODS.has(body.method)) return null;
  const id = body.id;
  if (typeof id !== 'string' && (typeof id !== 'number' || !Number.isInteger(id))) return null;
  const schema = REQUEST_SCHEMAS.get(body.method);
  if (!schema) return null;
  const checked = schema['~standard'].validate(body) as { issues?: ReadonlyArray<{ path?: ReadonlyArray<unknown> }> };
  if (!checked.issues?.length) return null;
  return { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidParams, message: 'Invalid params' } };
}

/** What the API-key guard leaves on the request for the endpoint. */
export interface McpCaller {
  ctx: ToolContext;
  narrowing: ToolNarrowing;
  /** Set by the tools/list handler: the serialized tool list (UTF-8) its answer's placeholder stands for. */
  listed?: Buffer;
}

/**
 * The tool list a tools/list handler hands the SDK: one placeholder tool, whose serialized form in the SDK's answer is
 * replaced by the list's JSON prepared once per permission set (tens of kilobytes the SDK would otherwise serialize on
 * every request: ≈ 0.5 ms of CPU, BENCHMARKS.md "MCP"). The SDK still builds, checks and frames the answer.
 */
export const LIST_PLACEHOLDER = { name: 'svc-listed-tools-7d1c2b9e-5a44-4c0e-9f3e-1b6a8e2f0c57', inputSchema: { type: 'object' as const } };
const LIST_PLACEHOLDER_BYTES = Buffer.from(JSON.stringify([LIST_PLACEHOLDER]));

/**
 * The SDK's answer with the prepared list in place of the placeholder, as the chunks to write (the list's bytes are
 * not copied); re-serialized if the placeholder is not found verbatim.
 */
export function spliceListed(answer: Buffer, listed: Buffer): Buffer[] {
  const at = answer.indexOf(LIST_PLACEHOLDER_BYTES);
  if (at >= 0) return [answer.subarray(0, at), listed, answer.subarray(at + LIST_PLACEHOLDER_BYTES.length)];
  const message = JSON.parse(answer.toString('utf8')) as { result?: { tools?: unknown } };
  if (message.result?.tools) message.result.tools = JSON.parse(listed.toString('utf8')) as unknown;
  return [Buffer.from(JSON.stringify(message))];
}

declare module 'express-serve-static-core' {
  interface Request {
    mcp?: McpCaller;
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** docs/tool-conventions.md §1.5: `X-MCP-Tools: a,b` and `X-MCP-Readonly: true`. */
export function narrowingOf(req: IncomingMessage): ToolNarrowing {
  const tools = headerValue(req, 'x-mcp-tools');
  const readOnly = headerValue(req, 'x-mcp-readonly')?.trim().toLowerCase() === 'true';
  if (tools === undefined && !readOnly) return NO_NARROWING;
  const only = tools === undefined ? null : new Set(tools.split(',').map((s) => s.trim()).filter(Boolean));
  return { only, readOnly };
}

/** The body, read only now (after the guards), at most `limit` bytes: 413 beyond. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new McpHttpError(413, -32600, 'Request body exceeds 1 MiB', { Connection: 'close' }));
  // Nothing may have read it before (a body parser ahead of the guards would be a bug): never wait for a spent stream.
  if (req.readableEnded) return Promise.reject(new Error('the request body was consumed before the tool endpoint read it'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new McpHttpError(413, -32600, 'Request body exceeds 1 MiB', { Connection: 'close' }));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** The request as the SDK reads it: method and headers (the body goes alongside, parsed). */
function webRequest(req: IncomingMessage): globalThis.Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return new globalThis.Request('http://localhost/api/mcp', { method: 'POST', headers });
}

/**
 * `POST /api/mcp` behind the controller's guards (docs/platform.md §4): reads and parses the body (which no body parser
 * touched before the key was accepted), tells the protocol eras apart, and has a fresh low-level SDK server bound
 * to the caller answer it — 2026-07-28 requests through the SDK's per-request handler, 2025-era requests through a
 * stateless transport answering plain JSON. What the servers read from is prepared once: the registry's tool lists,
 * schemas and validators.
 */
@Injectable()
export class McpEndpoint implements OnModuleDestroy {
  private readonly modern: McpHttpHandler;

  constructor(private readonly registry: ToolRegistry) {
    this.modern = createMcpHandler((c: McpRequestContext) => this.createServer(callerOf(c.authInfo)), { legacy: 'reject' });
  }

  async onModuleDestroy(): Promise<void> {
    await this.modern.close();
  }

  /** Serves one authenticated request; failures before the SDK are thrown as McpHttpError for the filter. */
  async serve(req: Request, res: ServerResponse, caller: McpCaller): Promise<void> {
    if (!req.is('application/json')) throw new McpHttpError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const raw = await readBody(req, MAX_BODY_BYTES);
    let body: unknown;
    try {
      if (raw.length === 0) throw new SyntaxError('empty body');
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new McpHttpError(400, -32700, 'Parse error: the body is empty or not valid JSON');
    }
    if (Array.isArray(body)) throw new McpHttpError(400, -32600, 'Invalid Request: batch requests are not supported');
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) throw new McpHttpError(400, -32700, `JSON body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
    if (isPlainObject(body) && body.method === 'subscriptions/listen') {
      // A listen stream is SSE; this endpoint answers one plain JSON body per request and has nothing to push.
      throw new McpHttpError(404, ProtocolErrorCode.MethodNotFound, 'Method not found: subscriptions/listen', {}, undefined, body.id);
    }
    const request = webRequest(req);
    const legacy = await isLegacyRequest(request, body);
    // A modern request names its revision in MCP-Protocol-Version; without it the 2025 schemas still apply.
    const refused = invalidParams(body, !legacy && headerValue(req, 'mcp-protocol-version') !== undefined);
    if (refused) {
      writeJson(res, await this.nonObjectArguments(body as Record<string, unknown>, caller, refused));
      return;
    }
    const authInfo: AuthInfo = { token: '', clientId: caller.ctx.actor.uuid, scopes: [], extra: { caller } };
    const response = legacy
      ? await this.serveLegacy(request, body, caller, authInfo)
      : await this.modern.fetch(request, { parsedBody: body, authInfo });
    await writeResponse(response, res, caller.listed);
  }

  /**
   * A `tools/call` whose `arguments` is not an object is a call with invalid arguments: the tool's VALIDATION_ERROR
   * result (docs/tool-conventions.md §1.4) — through the same guards, so a hidden tool stays unknown. Other refusals stay -32602.
   */
  private async nonObjectArguments(body: Record<string, unknown>, caller: McpCaller, refused: Record<string, unknown>): Promise<Record<string, unknown>> {
    const params = body.params;
    if (body.method !== 'tools/call' || !isPlainObject(params) || typeof params.name !== 'string' || !('arguments' in params) || isPlainObject(params.arguments)) return refused;
    try {
      return { jsonrpc: '2.0', id: body.id, result: await this.registry.call(params.name, params.arguments, caller.ctx, caller.narrowing) };
    } catch (err) {
      if (!(err instanceof UnknownToolError)) throw err;
      return { jsonrpc: '2.0', id: body.id, error: { code: ProtocolErrorCode.InvalidParams, message: err.message } };
    }
  }

  /** A 2025-era request: a fresh server over a stateless transport with plain JSON responses. */
  private async serveLegacy(request: globalThis.Request, body: unknown, caller: McpCaller, authInfo: AuthInfo): Promise<Response> {
    const server = this.createServer(caller);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, authInfo });
  }

  /** The per-request server: handlers bound to the caller over the registry's prepared lists. */
  createServer(caller: McpCaller): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
      cacheHints: CACHE_HINTS,
    });
    const { ctx, narrowing } = caller;
    server.setRequestHandler('tools/list', (request) => {
      // This server issues no cursors: the whole permitted list is one page.
      if (request.params?.cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
      const list = this.registry.list(ctx.actor.permissions, narrowing);
      caller.listed = list.bytes;
      if (list.unknown.length === 0) return { tools: [LIST_PLACEHOLDER] };
      return { tools: [LIST_PLACEHOLDER], _meta: { warnings: list.unknown.map((n) => `X-MCP-Tools names an unknown tool: ${n}`) } };
    });
    server.setRequestHandler('tools/call', async (request) => {
      try {
        return await this.registry.call(request.params.name, request.params.arguments, ctx, narrowing);
      } catch (err) {
        if (err instanceof UnknownToolError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
        throw err;
      }
    });
    return server;
  }
}

function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new Error('MCP request without an authenticated caller');
  return caller;
}

function writeJson(res: ServerResponse, message: Record<string, unknown>): void {
  const body = JSON.stringify(message);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Copies the SDK's answer to the socket in one write, with its length (and a tools/list's prepared list spliced in). */
async function writeResponse(response: Response, res: ServerResponse, listed: Buffer | undefined): Promise<void> {
  const answer = Buffer.from(await response.arrayBuffer());
  // Answered already: the request ran past its deadline (503 -32003) or the client left.
  if (res.headersSent || res.writableEnded) return;
  const chunks = listed === undefined ? [answer] : spliceListed(answer, listed);
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') res.setHeader(name, value);
  });
  res.setHeader('Content-Length', chunks.reduce((n, c) => n + c.length, 0));
  // Corked: headers and every chunk leave in one write (end() uncorks).
  res.cork();
  for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
  res.end(chunks[chunks.length - 1]);
}
