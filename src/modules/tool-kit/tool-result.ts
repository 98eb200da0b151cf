/** docs/tool-conventions.md §1.2: a result's text is at most 64 KiB; collections lose rows from the tail and gain `truncated: true`. */
export const RESULT_CAP_BYTES = 65_536;

type Json = Record<string, unknown>;
type Tracker = Record<string, { name: string; [rows: string]: unknown }>;

const size = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Largest k in [0, n] with fits(k), assuming fits is monotone decreasing in dropped rows. */
function maxKept(n: number, fits: (kept: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function trackerRows(tracker: Tracker, rowsKey: string): Array<[string, unknown]> {
  const rows: Array<[string, unknown]> = [];
  for (const [project, value] of Object.entries(tracker)) for (const row of value[rowsKey] as unknown[]) rows.push([project, row]);
  return rows;
}

function rebuildTracker(tracker: Tracker, rowsKey: string, rows: Array<[string, unknown]>): Tracker {
  const out: Tracker = {};
  for (const [project, row] of rows) {
    if (!out[project]) out[project] = { name: tracker[project].name, [rowsKey]: [] };
    (out[project][rowsKey] as unknown[]).push(row);
  }
  return out;
}

/** Serializes a tool result, cutting collections to the cap. Single records are never cut. */
export function renderResult(result: unknown): string {
  return render(result).text;
}

/** The result's text, and whether it is the whole result (`JSON.stringify(result)`, nothing cut). */
function render(result: unknown): { text: string; whole: boolean } {
  const text = JSON.stringify(result);
  // A string's UTF-8 size is at most 3 bytes per UTF-16 unit: short texts need no byte count.
  if (text.length * 3 <= RESULT_CAP_BYTES || size(text) <= RESULT_CAP_BYTES || result === null || typeof result !== 'object' || Array.isArray(result)) {
    return { text, whole: true };
  }
  return { text: cut(result as Json, text), whole: false };
}

/** A result over the cap: collections lose rows from the tail (or the whole text when nothing can be cut). */
function cut(obj: Json, text: string): string {
  if (obj.ideaTracker || obj.taskTracker) {
    // Trackers: task rows go first (last row of the last project first), then idea rows.
    const ideas = trackerRows((obj.ideaTracker ?? {}) as Tracker, 'ideas');
    const tasks = trackerRows((obj.taskTracker ?? {}) as Tracker, 'tasks');
    const all = ideas.length + tasks.length;
    const build = (kept: number): Json => {
      const keptIdeas = Math.min(ideas.length, kept);
      const keptTasks = Math.max(0, kept - ideas.length);
      const out: Json = { ...obj, truncated: true };
      if (obj.ideaTracker) out.ideaTracker = rebuildTracker(obj.ideaTracker as Tracker, 'ideas', ideas.slice(0, keptIdeas));
      if (obj.taskTracker) out.taskTracker = rebuildTracker(obj.taskTracker as Tracker, 'tasks', tasks.slice(0, keptTasks));
      return out;
    };
    return JSON.stringify(build(maxKept(all, (k) => size(JSON.stringify(build(k))) <= RESULT_CAP_BYTES)));
  }

  // Only list results (`{<items>, page, pageSize, total}`) are collections; records keep their arrays whole.
  const key = 'total' in obj ? Object.keys(obj).find((k) => Array.isArray(obj[k])) : undefined;
  if (!key) return text;
  const items = obj[key] as unknown[];
  const build = (kept: number): Json => ({ ...obj, [key]: items.slice(0, kept), truncated: true });
  return JSON.stringify(build(maxKept(items.length, (k) => size(JSON.stringify(build(k))) <= RESULT_CAP_BYTES)));
}

/** A `tools/call` result (docs/tool-conventions.md §1.1, §1.4). */
export interface CallResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * A successful call: the record as compact JSON text, collections cut to the cap; with `structured`, the same object
 * (after any cut) as `structuredContent` too, for clients that read it (docs/tool-conventions.md §1.1).
 */
export function toCallResult(record: unknown, structured = false): CallResult {
  const { text, whole } = render(record);
  if (!structured) return { content: [{ type: 'text', text }] };
  // Nothing cut: the record itself when its JSON is the text exactly — the SDK serializes it to the same bytes. Cut:
  // the text parsed back, the object it shows.
  return { content: [{ type: 'text', text }], structuredContent: whole ? structuredOf(record, text) : (JSON.parse(text) as Record<string, unknown>) };
}

/**
 * The record as structuredContent: itself when it is plain JSON data (plain objects, arrays, strings, finite numbers but -0,
 * booleans, null — what the tools' records are made of), else (a Date, an undefined field, a class instance…) the
 * text parsed back; either way the SDK's serialization of it is the text's bytes. Saves parsing back every read's
 * answer (BENCHMARKS.md "MCP").
 */
function structuredOf(record: unknown, text: string): Record<string, unknown> {
  return isPlainData(record, 0) ? (record as Record<string, unknown>) : (JSON.parse(text) as Record<string, unknown>);
}

function isPlainData(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || depth > 64) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!isPlainData(x, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) if (!isPlainData((v as Json)[k], depth + 1)) return false;
  return true;
}

/** A refused call: `isError` with `{error: {code, message, ...extra}}` as its text. */
export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...extra } }) }], isError: true };
}
