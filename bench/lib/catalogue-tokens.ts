import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';

/**
 * The size of a `tools/list` answer in cl100k tokens, the two ways BENCHMARKS.md "Tool catalogue size" records it:
 * `counted` is what docs/tool-conventions.md §1.5 budgets — each listed tool's `name`, `title`, `description` and `inputSchema`, as one
 * JSON list (annotations and output schemas are not counted); `whole` is the whole JSON-RPC answer body as sent.
 */
export const TOKEN_BUDGETS = { developer_agent: 7000, pm_agent: 11000, admin_agent: 12000 } as const;

export type BudgetedPreset = keyof typeof TOKEN_BUDGETS;

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

/** The part of a tools/list answer that hosts hand the model (docs/tool-conventions.md §1.5), serialized as one JSON list. */
export function countedJson(tools: readonly ListedTool[]): string {
  return JSON.stringify(tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema })));
}

export interface CatalogueSize {
  tools: number;
  counted: number;
  whole: number;
}

/** Both counts of one tools/list answer, from its raw JSON-RPC response body. */
export function catalogueSize(body: string): CatalogueSize {
  const tools = (JSON.parse(body) as { result: { tools: ListedTool[] } }).result.tools;
  return { tools: tools.length, counted: countTokens(countedJson(tools)), whole: countTokens(body) };
}
