/**
 * The v2 bare baseline for bench/mcp.ts: MCP TypeScript SDK v2 (`@modelcontextprotocol/server`) on node:http with no
 * framework, no auth and no database, serving the SAME catalogue as ours — the product's own `tools/list` answer for
 * a preset (fetched from the running product at bench start) plus an `echo` tool that returns its text.
 *
 * Per request, like ours: the body is read and JSON-parsed once and handed to the SDK as `parsedBody`; a headers-only
 * web `Request` is built; `isLegacyRequest` routes it — 2025-era requests to a fresh low-level `Server` over a
 * stateless `WebStandardStreamableHTTPServerTransport` answering plain JSON, 2026-07-28 requests to
 * `createMcpHandler(factory, { legacy: 'reject' })` whose factory builds a fresh low-level `Server`. Each server's two
 * handlers read lists prepared at boot; one `AjvJsonSchemaValidator` is shared by all servers.
 *
 * Run as a child process (bench/mcp.ts forks it): it waits for `{catalogues: {<path>: Tool[]}}` over IPC, serves
 * `POST /<path>` with that catalogue (+ echo), and answers `{url}`. `{profile: 'start'}` / `{profile: 'stop', file}`
 * record a V8 CPU profile of this process (bench/lib/profiler.ts).
 */
import http from 'node:http';
import { createMcpHandler, isLegacyRequest, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { installProfilerIpc } from './lib/profiler.js';

export const ECHO_TOOL = {
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text.',
  inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

type Tool = { name: string; [k: string]: unknown };

const SHARED_VALIDATOR = new AjvJsonSchemaValidator();
const INFO = { name: 'bare', version: '1.0.0' };

function createServer(tools: Tool[]): Server {
  const server = new Server(INFO, { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_VALIDATOR });
  server.setRequestHandler('tools/list', () => ({ tools: tools as never }));
  server.setRequestHandler('tools/call', (request) => {
    if (request.params.name !== ECHO_TOOL.name) return { content: [{ type: 'text', text: `Unknown tool: ${request.params.name}` }], isError: true };
    const text = (request.params.arguments as { text?: unknown } | undefined)?.text;
    return { content: [{ type: 'text', text: String(text) }] };
  });
  return server;
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => {
      try {
        resolve(JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.once('error', reject);
  });
}

/** The request as the SDK reads it: method and headers (the body goes alongside, parsed) — as ours builds it. */
function webRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return new Request(`http://localhost${req.url ?? '/'}`, { method: req.method, headers });
}

async function writeResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') res.setHeader(name, value);
  });
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** A node:http request listener serving each catalogue at its path. */
export function bareHandler(catalogues: Record<string, Tool[]>): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  // Per path: the catalogue (+ echo) and the modern leg, created once.
  const routes = new Map(
    Object.entries(catalogues).map(([path, list]) => {
      const tools = [...list, ECHO_TOOL as Tool];
      return [`/${path}`, { tools, modern: createMcpHandler(() => createServer(tools), { legacy: 'reject' }) }];
    }),
  );
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const route = routes.get(req.url ?? '');
    if (req.method !== 'POST' || !route) {
      res.writeHead(req.method !== 'POST' ? 405 : 404).end();
      return;
    }
    const body = await readJson(req);
    const request = webRequest(req);
    let response: Response;
    if (await isLegacyRequest(request, body)) {
      const server = createServer(route.tools);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body });
    } else {
      response = await route.modern.fetch(request, { parsedBody: body });
    }
    await writeResponse(response, res);
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('bare server:', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}

if (process.send && process.argv.includes('--bare-mcp-child')) {
  installProfilerIpc();
  process.on('message', (msg: { catalogues?: Record<string, Tool[]> }) => {
    if (!msg.catalogues) return;
    const server = http.createServer(bareHandler(msg.catalogues));
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      process.send!({ url: `http://127.0.0.1:${port}` });
    });
  });
  process.send({ ready: true });
}
