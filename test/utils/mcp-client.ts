import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type { Client } from '@modelcontextprotocol/client';

/** How the official v2 client negotiates: pinned to the current protocol (the default here), `auto`, or `legacy`. */
export type Negotiation = 'legacy' | 'auto' | { pin: string };

/**
 * The one MCP test client: the official SDK client over real HTTP (`mcpClient`, `callTool`, `rawCall`) and raw
 * JSON-RPC over fetch (`rpc`) for what the SDK would not send.
 */

/**
 * The official SDK client (v2), configured as an `http` server entry would be: URL + Authorization (+ scoping
 * headers), pinned to protocol 2026-07-28 unless told otherwise.
 */
export async function mcpClient(baseUrl: string, key: string, headers: Record<string, string> = {}, negotiation: Negotiation = { pin: '2026-07-28' }): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' }, { versionNegotiation: { mode: negotiation } });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** The v1 SDK client (`@modelcontextprotocol/sdk`), which speaks protocol 2025-11-25. */
export async function mcpClientV1(baseUrl: string, key: string, headers: Record<string, string> = {}): Promise<ClientV1> {
  const client = new ClientV1({ name: 'svc-test-v1', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransportV1(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolResult<T = any> {
  isError: boolean;
  data: T;
}

/** A tool result as the SDK client returns it, plus its raw JSON text for leak checks. */
export interface RawToolResult extends ToolResult {
  text: string;
}

type SdkToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };

/** Calls a tool and parses its JSON text; `isError` results come back as `{error}` with `isError: true`. */
export async function callTool<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
  const res = (await client.callTool({ name, arguments: args })) as SdkToolResult;
  return { isError: res.isError === true, data: JSON.parse(res.content[0].text) as T };
}

/** Like `callTool`, tolerating a missing or non-JSON text, with the whole result as JSON text (`text`). */
export async function rawCall(client: Client, name: string, args: Record<string, unknown>): Promise<RawToolResult> {
  const res = (await client.callTool({ name, arguments: args })) as SdkToolResult;
  const first = res.content?.[0]?.text ?? 'null';
  let data: unknown = first;
  try {
    data = JSON.parse(first);
  } catch {
    // not JSON
  }
  return { isError: res.isError === true, data, text: JSON.stringify(res) };
}

/** A successful call's result data; throws with the error otherwise. */
export async function okCall<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const res = await callTool<T>(client, name, args);
  if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.data)}`);
  return res.data;
}

/** Raw JSON-RPC over fetch, as curl would send it. */
export async function rpc(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, json, text };
}
