import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The baseline for bench/mcp.ts: a bare low-level SDK `Server` with ONE trivial tool on node:http, stateless (a
 * fresh server per request, as ours). Two ways to serve it:
 * - `single`: the same single-request transport ours uses (plain JSON body in, JSON out) and, like ours, one JSON
 *   schema validator shared by all servers — the strict floor that isolates our own overhead;
 * - `sdk`: the SDK's documented stateless setup with its defaults: StreamableHTTPServerTransport in JSON-response
 *   mode, a fresh transport and server (with its own Ajv validator) per request.
 */
export type BareMode = 'single' | 'sdk';

export const TRIVIAL_TOOL = 'ping';

const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

function createServer(mode: BareMode): Server {
  const options = mode === 'single' ? { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_VALIDATOR } : { capabilities: { tools: {} } };
  const server = new Server({ name: 'bare', version: '1.0.0' }, options);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: TRIVIAL_TOOL,
        description: 'Answers pong.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        annotations: { title: 'Ping', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: JSON.stringify({ pong: true }) }] }));
  return server;
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

async function handle(mode: BareMode, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readBody(req);
  const server = createServer(mode);
  if (mode === 'sdk') {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    return;
  }
  throw new Error(`bare mode ${mode} is gone with the v1 single-request transport`);
}

export function startBareMcpServer(mode: BareMode): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    handle(mode, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () => new Promise((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
      });
    });
  });
}
