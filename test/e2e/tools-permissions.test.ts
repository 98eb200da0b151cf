import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { SeededUser } from '../factories/identity.factory.js';
import { HttpClient } from '../utils/http.js';
import { mcpClient, rpc } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';
import { CATALOGUE, DESCRIPTIONS, GATED, PRESET_BITS, PUBLIC_TOOLS, SESSION_TOOLS, type Hint } from '../utils/tool-contract.js';

/**
 * The permission matrix (docs/tool-conventions.md §4–5: each gated tool and its one permission): every expectation is computed from the contract
 * tables in test/utils/tool-contract.ts, never from the implementation's own catalogue.
 */
const ORDER = CATALOGUE.flatMap((s) => s.tools.map(([name]) => name));
const HINT = new Map(CATALOGUE.flatMap((s) => s.tools));
const BIT_OF = new Map(Object.entries(GATED).flatMap(([bit, tools]) => tools.map((t) => [t, bit] as const)));
const expectedTools = (bits: readonly string[]): string[] => ORDER.filter((t) => !BIT_OF.has(t) || bits.includes(BIT_OF.get(t)!));

const ANNOTATIONS: Record<Hint, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }> = {
  R: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  W: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  WI: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  D: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

const CASES: Array<{ label: string; preset: string; custom: string[]; count: number }> = [
  { label: 'developer_agent', preset: 'developer_agent', custom: [], count: 44 },
  { label: 'pm_agent', preset: 'pm_agent', custom: [], count: 74 },
  { label: 'admin_agent', preset: 'admin_agent', custom: [], count: 84 },
  { label: 'developer_agent + idea:admin', preset: 'developer_agent', custom: ['idea:admin'], count: 46 },
];

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, any>;
  annotations?: Record<string, unknown>;
}

/** Compares a listed set with the expected one, naming what is missing or extra before checking the order. */
function expectSameTools(listed: string[], expected: string[]): void {
  const missing = expected.filter((t) => !listed.includes(t));
  const extra = listed.filter((t) => !expected.includes(t));
  expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  expect(listed).toEqual(expected);
}

/** Sentences end with . ! or ? followed by a space or the end; "svc_get_*" and "(open -> assigned)" do not end one. */
const sentences = (text: string): number => (text.match(/[.!?](?=\s|$)/g) ?? []).length;
const LIST_MARKUP = /(^|\n)\s*([-*•+]|\d+[.)])\s/;

/** Every object schema inside (properties, array items, unions) is closed. */
function openObjects(schema: any, path = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const open: string[] = [];
  if (schema.type === 'object' && schema.additionalProperties !== false) open.push(path || '(root)');
  for (const [k, v] of Object.entries<any>(schema.properties ?? {})) open.push(...openObjects(v, path ? `${path}.${k}` : k));
  if (schema.items) open.push(...openObjects(schema.items, `${path}[]`));
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) open.push(...openObjects(alt, path));
  return open;
}

describe('tool permission matrix (e2e, official SDK client)', () => {
  let app: World;
  let owner: SeededUser;
  let companyUuid: string;
  const keys = new Map<string, string>();
  const clients: Client[] = [];
  const ids = () => app.ids;

  beforeAll(async () => {
    app = await World.start();
    const c = await ids().company('Matrix');
    companyUuid = c.uuid;
    owner = await ids().user(c.uuid, { name: 'Owner' });
    for (const k of CASES) keys.set(k.label, (await ids().agent(c.uuid, owner.uuid, { preset: k.preset, permissions: k.custom })).key);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await app?.close();
  });

  const client = async (key: string) => {
    const c = await mcpClient(app.url, key);
    clients.push(c);
    return c;
  };
  const list = async (key: string): Promise<ListedTool[]> => (await (await client(key)).listTools()).tools as ListedTool[];

  it('transcribes a consistent contract: 84 tools = 31 public + 8 session + 45 gated, one bit each', () => {
    expect(new Set(ORDER).size).toBe(84);
    expect(PUBLIC_TOOLS).toHaveLength(31);
    expect(SESSION_TOOLS).toHaveLength(8);
    expect(BIT_OF.size).toBe(45);
    expect([...PUBLIC_TOOLS, ...SESSION_TOOLS, ...BIT_OF.keys()].sort()).toEqual([...ORDER].sort());
    expect(ORDER.slice(0, 39)).toEqual([...PUBLIC_TOOLS, ...SESSION_TOOLS]);
    expect(Object.keys(DESCRIPTIONS).sort()).toEqual([...ORDER].sort());
    for (const k of CASES) expect([k.label, expectedTools([...PRESET_BITS[k.preset], ...k.custom]).length]).toEqual([k.label, k.count]);
  });

  it.each(CASES)('tools/list for $label is exactly the $count tools of its bits, in catalogue order', async (k) => {
    const listed = (await list(keys.get(k.label)!)).map((t) => t.name);
    const expected = expectedTools([...PRESET_BITS[k.preset], ...k.custom]);
    expect(expected).toHaveLength(k.count);
    expectSameTools(listed, expected);
  });

  it.each(CASES)('for $label every tool outside its set answers JSON-RPC -32602 "Unknown tool: <name>"', async (k) => {
    const hidden = ORDER.filter((t) => !expectedTools([...PRESET_BITS[k.preset], ...k.custom]).includes(t));
    const auth = { authorization: `Bearer ${keys.get(k.label)}` };
    for (const name of hidden) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, auth);
      expect([name, res.status, res.json]).toEqual([name, 200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Unknown tool: ${name}` } }]);
    }
  });

  it('describes every listed tool per docs/tool-conventions.md §1.3 and §6: exact description (≤ 2 sentences, no lists), closed schema, five annotations', async () => {
    const problems: string[] = [];
    for (const t of await list(keys.get('admin_agent')!)) {
      const d = t.description ?? '';
      if (d !== DESCRIPTIONS[t.name]) problems.push(`${t.name}: description differs from docs/tool-conventions.md §6`);
      if (sentences(d) < 1 || sentences(d) > 2) problems.push(`${t.name}: ${sentences(d)} sentences`);
      if (LIST_MARKUP.test(d) || d.includes('\n')) problems.push(`${t.name}: list markup or line breaks in the description`);
      if (t.inputSchema.type !== 'object') problems.push(`${t.name}: input schema is not an object`);
      for (const path of openObjects(t.inputSchema)) problems.push(`${t.name}: ${path} lacks additionalProperties: false`);
      for (const [prop, s] of Object.entries<any>(t.inputSchema.properties ?? {})) if (!s.description) problems.push(`${t.name}: property ${prop} has no description`);
      const a = (t.annotations ?? {}) as Record<string, unknown>;
      const hint = HINT.get(t.name);
      const flags = { readOnlyHint: a.readOnlyHint, destructiveHint: a.destructiveHint, idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint };
      if (JSON.stringify(Object.keys(a).sort()) !== JSON.stringify(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])) {
        problems.push(`${t.name}: annotations must have exactly title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint`);
      } else if (typeof a.title !== 'string' || a.title.trim() === '') {
        problems.push(`${t.name}: annotation title missing`);
      } else if (!hint || JSON.stringify(flags) !== JSON.stringify({ ...ANNOTATIONS[hint], openWorldHint: false })) {
        problems.push(`${t.name}: annotations ${JSON.stringify(flags)} do not match hint ${hint}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('applies a permission change on the very next request with the same key; a removed tool fails exactly like a missing one', async () => {
    const { agent, key } = await ids().agent(companyUuid, owner.uuid, { preset: 'developer_agent' });
    const http = new HttpClient(app.url);
    await http.login(owner.email, owner.password);
    const mcp = await client(key);
    const names = async () => (await mcp.listTools()).tools.map((t) => t.name);
    // The delta is checked here (the full sets are the matrix tests' job): exactly the bit's tools appear and go.
    const added = expectedTools([...PRESET_BITS.developer_agent, 'document:admin']).filter((t) => !expectedTools(PRESET_BITS.developer_agent).includes(t));
    expect(added).toEqual(['svc_admin_delete_document']);
    const before = await names();
    expect(before).not.toContain('svc_admin_delete_document');

    expect((await http.patch(`/api/agents/${agent.uuid}`, { permissions: ['document:admin'] })).status).toBe(200);
    expect(await names()).toEqual(ORDER.filter((t) => before.includes(t) || added.includes(t)));
    // Listed means callable: the handler runs (and answers NOT_FOUND for a document that does not exist).
    const found = await mcp.callTool({ name: 'svc_admin_delete_document', arguments: { documentUuid: randomUUID() } });
    expect(found.isError).toBe(true);
    expect(JSON.parse((found.content as Array<{ text: string }>)[0].text).error.code).toBe('NOT_FOUND');

    expect((await http.patch(`/api/agents/${agent.uuid}`, { permissions: [] })).status).toBe(200);
    expect(await names()).toEqual(before);
    await expect(mcp.callTool({ name: 'svc_admin_delete_document', arguments: { documentUuid: randomUUID() } })).rejects.toMatchObject({ code: -32602 });
    const auth = { authorization: `Bearer ${key}` };
    const call = (name: string) => rpc(app.url, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: { documentUuid: randomUUID() } } }, auth);
    const hidden = await call('svc_admin_delete_document');
    const missing = await call('svc_admin_delete_everything');
    expect(hidden.json).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool: svc_admin_delete_document' } });
    expect([hidden.status, JSON.stringify(hidden.json).replace('svc_admin_delete_document', '<name>')]).toEqual([
      missing.status,
      JSON.stringify(missing.json).replace('svc_admin_delete_everything', '<name>'),
    ]);
  });
});

