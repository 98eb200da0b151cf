import fc from 'fast-check';
import { FUZZ_RUNS, fuzzParams, fuzzTimeout, OutcomeStats, settle } from './support/config.js';
import { DbChecksum } from './support/db-checksum.js';
import { toolCallProblems } from './support/expectations.js';
import { FuzzWorld } from './support/fuzz-world.js';
import { listTools, toolCallRequest, toolCaseArb, toolSchemaContext, type ToolCase, type ToolInfo } from './support/mcp-cases.js';
import { describeRequest, send } from './support/raw-http.js';

/**
 * Every MCP tool an admin agent sees (tools/list, so new tools are covered automatically), called with arguments
 * derived from its inputSchema: schema-shaped values with hostile fields (wrong types, missing required, extra and
 * prototype-pollution keys, huge and unicode/NUL strings, 1e309 / -0, deep nesting), uuids of the caller's company,
 * of the other company (the caller is sometimes company B's admin) and random ones, plus scoping headers.
 *
 * Every answer: HTTP 200 with the JSON-RPC id echoed; a refusal is an `isError` result whose text is
 * `{"error":{code,message}}` with a documented code (or JSON-RPC -32602); never INTERNAL_ERROR; a refused call and
 * every successful read-only tool leave the database exactly as it was.
 */
const TOOL_RUNS = Math.max(3, Math.ceil(FUZZ_RUNS / 8));

/** Documented writes of read-only tools (none today). */
const READ_SIDE_EFFECTS: Record<string, string[]> = {};

describe('fuzz: MCP tools', () => {
  let world: FuzzWorld;
  let tools: ToolInfo[];
  const stats = new OutcomeStats();

  beforeAll(async () => {
    world = await FuzzWorld.start();
    tools = await listTools(world.url, world.a.adminKey);
  }, 60_000);
  afterAll(async () => {
    stats.print('MCP tools');
    await world?.close();
  });

  async function exercise(c: ToolCase): Promise<void> {
    const req = toolCallRequest(c, world.a, world.b);
    const before = await world.checksum.take();
    let problems: string[];
    try {
      const res = await send(world.url, req);
      const outcome = toolCallProblems(res, c.id);
      problems = outcome.problems;
      const parsed = (() => {
        try {
          return JSON.parse((res.json as { result?: { content?: Array<{ text?: string }> } }).result?.content?.[0]?.text ?? 'null') as { error?: { code?: string; errorId?: string } } | null;
        } catch {
          return null;
        }
      })();
      stats.add(outcome.refused ? `refused ${parsed?.error?.code ?? (res.json as { error?: { code?: number } }).error?.code ?? res.status}` : 'ok');
      if (parsed?.error?.code === 'INTERNAL_ERROR') problems.push(world.causeOf(parsed.error.errorId));
      const readOnly = c.tool.annotations?.readOnlyHint === true;
      if (outcome.refused || readOnly) {
        const allowed = outcome.refused ? [] : (READ_SIDE_EFFECTS[c.tool.name] ?? []);
        const changed = DbChecksum.diff(before, await world.checksum.take()).filter((p) => !allowed.some((t) => p.startsWith(`table "${t}"`)));
        problems.push(...changed.map((p) => `${outcome.refused ? 'refused call' : 'read-only tool'} but ${p}`));
      }
    } catch (err) {
      problems = [`request failed: ${String(err)}`];
    }
    settle(problems, () => describeRequest(req));
  }

  it('lists the admin agent\'s tools with their input schemas', () => {
    expect(tools.length).toBeGreaterThan(70);
    for (const t of tools) expect(t.inputSchema).toEqual(expect.objectContaining({ type: 'object' }));
  });

  it(
    `every tool, ${TOOL_RUNS} hostile calls each: documented errors only, no state change when refused`,
    async () => {
      const ctx = toolSchemaContext(world, tools);
      for (const tool of tools) {
        await world.refreshPools();
        try {
          await fc.assert(fc.asyncProperty(toolCaseArb(tool, ctx, world), exercise), { ...fuzzParams(), numRuns: TOOL_RUNS });
        } catch (err) {
          throw new Error(`${tool.name}: ${(err as Error).message}`);
        }
      }
    },
    fuzzTimeout(12),
  );

  it(
    'random tools, random arguments',
    async () => {
      await world.refreshPools();
      const ctx = toolSchemaContext(world, tools);
      await fc.assert(fc.asyncProperty(fc.constantFrom(...tools).chain((t) => toolCaseArb(t, ctx, world)), exercise), fuzzParams(2));
    },
    fuzzTimeout(2),
  );
});
