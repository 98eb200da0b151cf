// Types only: the SDK client is loaded when an `mcp` command runs, not for every CLI command.
import type { Client } from '@modelcontextprotocol/client';
import { list, optionalStr, ReportedError, str, UsageError, type CliCommand, type OptionValues } from './cli-command.js';

/**
 * The tool client (docs/platform.md §4: "a command-line client uses the same key and endpoint"): the official SDK client
 * (v2) over Streamable HTTP, pinned to the current protocol, 2026-07-28, and configured like an `http` server entry —
 * endpoint URL, `Authorization` and optional scoping headers. It talks to a running service and never opens a
 * database.
 */
export const CLI_PROTOCOL_VERSION = '2026-07-28';

const CONNECTION = {
  url: { type: 'string' },
  key: { type: 'string' },
  header: { type: 'string', multiple: true },
} as const;

/** `--url` is the service's base URL; a URL that already ends in /api/mcp is taken as the endpoint. */
function endpoint(values: OptionValues): URL {
  const base = str(values, 'url');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`Invalid --url: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`Invalid --url: ${base} (http or https)`);
  return /\/api\/mcp\/?$/.test(url.pathname) ? url : new URL(`${url.pathname.replace(/\/+$/, '')}/api/mcp${url.search}`, url);
}

function headers(values: OptionValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list(values, 'header') ?? []) {
    const eq = h.indexOf('=');
    if (eq <= 0) throw new UsageError(`Invalid --header ${h} (expected Name=Value)`);
    out[h.slice(0, eq).trim()] = h.slice(eq + 1).trim();
  }
  out.Authorization = `Bearer ${str(values, 'key')}`;
  return out;
}

function toolArguments(values: OptionValues): Record<string, unknown> {
  const raw = optionalStr(values, 'args');
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`Invalid --args: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('Invalid --args: expected a JSON object');
  return parsed as Record<string, unknown>;
}

/** Transport and protocol failures as the CLI's `{error: {code, message}}`. */
function failure(err: unknown, url: URL, { ProtocolError, SdkHttpError }: typeof import('@modelcontextprotocol/client')): never {
  if (err instanceof ProtocolError) {
    throw new ReportedError({ code: 'RPC_ERROR', message: err.message.replace(/^MCP error -?\d+: /, ''), rpcCode: err.code });
  }
  if (err instanceof SdkHttpError) {
    // The service's JSON-RPC error body, when the SDK kept it (e.g. the 401 "Missing or invalid API key").
    let message = err.message;
    const text = typeof err.data.text === 'string' ? err.data.text : /(\{.*\})\s*$/s.exec(err.message)?.[1];
    try {
      message = (JSON.parse(text ?? '') as { error: { message: string } }).error.message ?? message;
    } catch {
      // not a JSON-RPC body: keep the SDK's message
    }
    const status = err.status;
    const code = status === 401 ? 'UNAUTHORIZED' : status === 503 ? 'SERVICE_UNAVAILABLE' : 'HTTP_ERROR';
    throw new ReportedError({ code, message, status });
  }
  // The connection failure, also when the SDK wraps it (e.g. "Version negotiation probe failed: fetch failed").
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ReportedError({ code: 'SERVICE_UNAVAILABLE', message: `Cannot reach ${url.href}: ${cause?.code ?? cause?.message ?? e.message}` });
    }
  }
  throw err;
}

async function withClient<T>(values: OptionValues, work: (client: Client) => Promise<T>): Promise<T> {
  const url = endpoint(values);
  const sdk = await import('@modelcontextprotocol/client');
  const { Client, StreamableHTTPClientTransport } = sdk;
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: headers(values) } });
  const client = new Client({ name: 'svc-cli', version: '1.0.0' }, { versionNegotiation: { mode: { pin: CLI_PROTOCOL_VERSION } } });
  try {
    await client.connect(transport);
    return await work(client);
  } catch (err) {
    return failure(err, url, sdk);
  } finally {
    await client.close();
  }
}

interface TextContent {
  type: string;
  text?: string;
}

/** Tool results are JSON text (docs/tool-conventions.md §1.1); anything else is shown as the raw content. */
function parseContent(content: TextContent[]): Record<string, unknown> {
  const text = content.length === 1 && content[0].type === 'text' ? content[0].text : undefined;
  if (text !== undefined) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { text };
    }
  }
  return { content };
}

export const MCP_COMMANDS: CliCommand[] = [
  {
    path: ['mcp', 'tools'],
    synopsis: '--url <base> --key <agk> [--header Name=Value ...]',
    options: CONNECTION,
    required: ['url', 'key'],
    database: false,
    run: (values) =>
      withClient(values, async (client) => ({
        tools: (await client.listTools()).tools.map((t) => ({ name: t.name, title: t.title ?? t.annotations?.title ?? null, description: t.description ?? null })),
      })),
  },
  {
    path: ['mcp', 'call'],
    positionals: ['tool'],
    synopsis: "--url <base> --key <agk> [--header Name=Value ...] [--args '<json>']",
    options: { ...CONNECTION, args: { type: 'string' } },
    required: ['url', 'key'],
    database: false,
    run: (values) => {
      const args = toolArguments(values);
      return withClient(values, async (client) => {
        const res = await client.callTool({ name: str(values, 'tool'), arguments: args });
        const result = parseContent(res.content as TextContent[]);
        if (res.isError) {
          const error = result.error && typeof result.error === 'object' ? (result.error as Record<string, unknown>) : { code: 'TOOL_ERROR', message: JSON.stringify(result) };
          throw new ReportedError(error);
        }
        return result;
      });
    },
  },
];
