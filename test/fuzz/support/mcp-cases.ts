import fc from 'fast-check';
import type { Company, FuzzWorld } from './fuzz-world.js';
import { fuzzed, headerSafe, hostileString, hostileValue, propertyNames, toJsonText, type JsonSchema, type SchemaContext } from './hostile.js';
import { send, type RawRequest } from './raw-http.js';

export interface ToolInfo {
  name: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** tools/list of an agent, over raw HTTP. */
export async function listTools(url: string, key: string): Promise<ToolInfo[]> {
  const res = await send(url, { method: 'POST', path: '/api/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  const tools = (res.json as { result?: { tools?: ToolInfo[] } } | undefined)?.result?.tools;
  if (res.status !== 200 || !tools) throw new Error(`tools/list failed: ${res.status} ${res.text.slice(0, 300)}`);
  return tools;
}

export function toolSchemaContext(world: FuzzWorld, tools: ToolInfo[]): SchemaContext {
  return {
    resolve: () => ({}),
    uuids: world.uuidArb(),
    uuidsFor: (field) => world.uuidsForField(field),
    knownKeys: propertyNames(tools.map((t) => t.inputSchema)),
  };
}

export interface ToolCase {
  tool: ToolInfo;
  id: number;
  /** undefined: no `arguments` member at all. */
  args: unknown;
  caller: 'a' | 'b';
  scope: Array<[string, string]>;
}

const SCOPE_HEADERS = fc.array(
  fc.tuple(
    fc.constantFrom('x-service-project', 'x-service-project-group', 'x-service-session', 'mcp-session-id', 'mcp-protocol-version'),
    fc.oneof(fc.uuid(), hostileString.map((s) => headerSafe(s).slice(0, 2_000)), fc.constantFrom(',', ' , ,', '2025-06-18', '1999-01-01')),
  ),
  { maxLength: 2 },
);

export function toolCaseArb(tool: ToolInfo, ctx: SchemaContext, world: FuzzWorld): fc.Arbitrary<ToolCase> {
  const projectScope = fc.constantFrom(...[...world.a.pool.projects, ...world.b.pool.projects]).map((u): Array<[string, string]> => [['x-service-project', u]]);
  return fc.record({
    tool: fc.constant(tool),
    id: fc.integer({ min: 1, max: 1_000_000 }),
    args: fc.oneof({ weight: 14, arbitrary: fuzzed(tool.inputSchema, ctx) }, { weight: 1, arbitrary: hostileValue(ctx.knownKeys) }, { weight: 1, arbitrary: fc.constant(undefined) }),
    caller: fc.oneof({ weight: 8, arbitrary: fc.constant<'a' | 'b'>('a') }, { weight: 1, arbitrary: fc.constant<'a' | 'b'>('b') }),
    scope: fc.oneof({ weight: 6, arbitrary: fc.constant([] as Array<[string, string]>) }, { weight: 1, arbitrary: SCOPE_HEADERS }, { weight: 1, arbitrary: projectScope }),
  });
}

export function toolCallRequest(c: ToolCase, a: Company, b: Company): RawRequest {
  const params: Record<string, unknown> = { name: c.tool.name };
  if (c.args !== undefined) params.arguments = c.args;
  const headers: Record<string, string> = { ...MCP_HEADERS, authorization: `Bearer ${(c.caller === 'a' ? a : b).adminKey}` };
  for (const [k, v] of c.scope) headers[k] = v;
  return { method: 'POST', path: '/api/mcp', headers, body: toJsonText({ jsonrpc: '2.0', id: c.id, method: 'tools/call', params }) };
}
