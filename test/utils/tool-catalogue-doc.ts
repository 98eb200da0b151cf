import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { effectivePermissions, PRESETS, type Permission } from '../../src/shared/auth/permissions.js';
import type { ToolRegistry } from '../../src/modules/tool-kit/index.js';
import { countedJson, TOKEN_BUDGETS } from '../../bench/lib/catalogue-tokens.js';

/**
 * docs/tools.md, rendered from the registry the service builds at boot: every tool's name, title, permission, hints,
 * description, input and output schemas, which presets list it, and the catalogue's size per preset in cl100k tokens
 * (what hosts hand the model: name, title, description and input schema). `npm run docs:tools` writes it;
 * test/e2e/tool-catalogue.test.ts ("the catalogue doc") fails when the file is not what the code lists.
 */
export function renderToolCatalogue(registry: ToolRegistry): string {
  const all = registry.catalogue();
  const presets = PRESETS.map((preset) => {
    const permissions = new Set<Permission>(effectivePermissions(preset, []));
    const listed = all.filter((t) => t.permission === null || permissions.has(t.permission)).map((t) => t.descriptor);
    return { preset, names: new Set(listed.map((t) => t.name)), tools: listed.length, tokens: countTokens(countedJson(listed)), budget: TOKEN_BUDGETS[preset] };
  });
  const out: string[] = [];
  out.push('# Tool catalogue');
  out.push('');
  out.push('<!-- Generated from the tool registry by `npm run docs:tools`; test/e2e/tool-catalogue.test.ts keeps it current. Do not edit. -->');
  out.push('');
  out.push('The agent tools of `POST /api/mcp`, as `tools/list` shows them, in catalogue order. An agent sees the public and');
  out.push("session tools (no permission) plus the gated tools whose permission bit its preset and custom bits hold; the");
  out.push('`X-MCP-Tools` and `X-MCP-Readonly` headers only remove tools. A hidden or unknown tool answers JSON-RPC `-32602`');
  out.push('"Unknown tool: <name>". Results are JSON text (and `structuredContent` for tools with an output schema); a refused');
  out.push('call is `isError: true` with `{"error": {code, message, …}}` (README "Agents and the tool endpoint (MCP)").');
  out.push('');
  out.push('## Size per preset');
  out.push('');
  out.push('Tokens: cl100k, of each listed tool\'s name, title, description and input schema as one JSON list (annotations and');
  out.push('output schemas not counted), against the budget `test/e2e/tool-catalogue.test.ts` holds.');
  out.push('');
  out.push('| preset | tools | tokens | budget |');
  out.push('|---|---|---|---|');
  for (const p of presets) out.push(`| \`${p.preset}\` | ${p.tools} | ${p.tokens.toLocaleString('en-US')} | ${p.budget.toLocaleString('en-US')} |`);
  out.push('');
  out.push('## Tools');
  out.push('');
  out.push('| tool | permission | hints | presets |');
  out.push('|---|---|---|---|');
  for (const t of all) {
    out.push(`| [\`${t.descriptor.name}\`](#${t.descriptor.name}) | ${t.permission ? `\`${t.permission}\`` : '—'} | ${hints(t.descriptor.annotations)} | ${presetsOf(presets, t.descriptor.name)} |`);
  }
  for (const t of all) {
    const d = t.descriptor;
    out.push('');
    out.push(`### ${d.name}`);
    out.push('');
    out.push(`**${d.title}** — permission ${t.permission ? `\`${t.permission}\`` : 'none'}; ${hints(d.annotations)}; listed for ${presetsOf(presets, d.name)}; ${countTokens(countedJson([d]))} tokens.`);
    out.push('');
    out.push(d.description);
    out.push('');
    out.push(...propertyTable('Arguments', d.inputSchema, true));
    if (d.outputSchema) out.push('', ...propertyTable('Result (`structuredContent`, the same object as the JSON text)', d.outputSchema, false));
  }
  out.push('');
  return out.join('\n');
}

type Schema = { [key: string]: unknown };

/** A schema's properties as a table: name, type (with its bounds), required, description. */
function propertyTable(title: string, schema: Schema, withDescriptions: boolean): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (!names.length) return [`${title}: none.`];
  const rows = names.map((n) => {
    const p = properties[n];
    const cells = [`\`${n}\``, typeOf(p), required.has(n) ? 'yes' : ''];
    if (withDescriptions) cells.push(String(p.description ?? '').replace(/\|/g, '\\|'));
    return `| ${cells.join(' | ')} |`;
  });
  const head = withDescriptions ? ['| name | type | required | description |', '|---|---|---|---|'] : ['| name | type | required |', '|---|---|---|'];
  return [`${title}:`, '', ...head, ...rows];
}

/** A compact type: `string (uuid)`, `integer 1–100`, `one of a, b`, `list of string`, nullable as `… or null`. */
function typeOf(p: Schema): string {
  if (Array.isArray(p.enum)) return `one of ${(p.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`;
  const types = (Array.isArray(p.type) ? p.type : [p.type ?? (p.anyOf ? 'any' : 'object')]) as string[];
  const main = types.filter((t) => t !== 'null');
  let text = main.join(' or ');
  if (text === 'array' && p.items) text = `list of ${typeOf(p.items as Schema)}`;
  if (p.format) text += ` (${String(p.format)})`;
  const bounds: string[] = [];
  if (p.minimum !== undefined || p.maximum !== undefined) bounds.push(`${p.minimum ?? ''}–${p.maximum ?? ''}`);
  if (p.minLength !== undefined || p.maxLength !== undefined) bounds.push(`${p.minLength ?? 0}–${p.maxLength ?? ''} chars`);
  if (p.minItems !== undefined || p.maxItems !== undefined) bounds.push(`${p.minItems ?? 0}–${p.maxItems ?? ''} items`);
  if (bounds.length) text += ` ${bounds.join(', ')}`;
  if (types.includes('null')) text += ' or null';
  return text;
}

function hints(a: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }): string {
  if (a.readOnlyHint) return 'read-only';
  return [a.destructiveHint ? 'destructive' : 'write', a.idempotentHint ? 'idempotent' : null].filter(Boolean).join(', ');
}

function presetsOf(presets: Array<{ preset: string; names: ReadonlySet<string> }>, name: string): string {
  return presets.filter((p) => p.names.has(name)).map((p) => `\`${p.preset}\``).join(', ') || 'none';
}
