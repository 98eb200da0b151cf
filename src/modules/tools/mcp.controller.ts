import { All, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Request, Response } from 'express';
import { CredentialResolver, type AuthContext } from '../../shared/auth/auth-context.js';
import type { Permission } from '../../shared/auth/permissions.js';
import { Public } from '../../shared/auth/decorators.js';
import { RawResponse } from '../../shared/http/envelope.interceptor.js';
import { requestContext } from '../../shared/logging/logger.js';
import { SingleRequestTransport } from './mcp-transport.js';
import { ToolRegistry, UnknownToolError } from './tool-registry.js';
import type { ToolContext } from './tool.decorator.js';

const SERVER_INFO = { name: 'svc', version: '1.0.0' };
/**
 * Shared by every per-request server: the SDK otherwise builds a fresh Ajv instance per Server (~0.8 ms of CPU per
 * request). It only validates elicitation answers, which this server never asks for.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

function rpcError(res: Response, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function isJsonRpcMessage(body: unknown): body is JSONRPCMessage {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const m = body as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if ('method' in m) {
    if (typeof m.method !== 'string') return false;
    if ('id' in m && typeof m.id !== 'string' && typeof m.id !== 'number') return false;
    return m.params === undefined || (typeof m.params === 'object' && m.params !== null);
  }
  return 'id' in m && ('result' in m || 'error' in m);
}

/**
 * `POST /api/mcp` (platform.md §4): stateless MCP over Streamable HTTP with plain JSON responses. Each request
 * authenticates its key, recomputes the agent's permissions and is served by a fresh low-level SDK server bound to
 * that context over the registry prepared at boot.
 */
@Controller('api/mcp')
@Public()
@RawResponse()
export class McpController {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly credentials: CredentialResolver,
  ) {}

  @Post()
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
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
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      rpcError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      return;
    }
    if (!req.is('application/json')) {
      rpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      return;
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
    const transport = new SingleRequestTransport();
    const server = this.createServer({ actor: auth.actor, auth, headers: req.headers, requestId: req.requestId });
    await server.connect(transport);
    const response = await transport.dispatch(body);
    await server.close();
    if (response === null) {
      res.status(202).end();
      return;
    }
    res.status(200).type('application/json').send(this.serialize(response, auth.actor.permissions));
  }

  @All()
  @HttpCode(405)
  methodNotAllowed(@Res() res: Response): void {
    rpcError(res, 405, -32000, 'Method not allowed', { Allow: 'POST' });
  }

  /** A `tools/list` answer is the registry's cached array, so its cached JSON is spliced in instead of re-serializing it. */
  private serialize(message: JSONRPCMessage, permissions: ReadonlySet<Permission>): string {
    const result = 'result' in message ? (message.result as { tools?: unknown }) : undefined;
    if (result && 'id' in message && Object.keys(result).length === 1 && result.tools === this.registry.list(permissions)) {
      return `{"result":{"tools":${this.registry.listJson(permissions)}},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
    }
    return JSON.stringify(message);
  }

  private createServer(ctx: ToolContext & { auth: AuthContext }): Server {
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
}
