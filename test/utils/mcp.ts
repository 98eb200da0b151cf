import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The official SDK client, configured as an `http` server entry would be: URL + Authorization (+ scoping headers). */
export async function mcpClient(baseUrl: string, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and parses its JSON text; `isError` results come back as `{error}` with `isError: true`. */
export async function callTool<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; data: T }> {
  const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  return { isError: res.isError === true, data: JSON.parse(res.content[0].text) as T };
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
