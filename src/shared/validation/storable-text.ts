/**
 * Text PostgreSQL cannot store: U+0000 (text and jsonb refuse it: "invalid byte sequence for encoding UTF8: 0x00")
 * and unpaired UTF-16 surrogates (valid as JSON escapes, but jsonb refuses `\ud800`: "invalid input syntax for type
 * json"). Such a string would reach the database and fail there as a 500; inputs are checked for it at the
 * boundaries instead (REST validation pipe, tool registry) and refused as VALIDATION_ERROR.
 */
export const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';
export const SURROGATE_MESSAGE = 'must be well-formed Unicode (no unpaired surrogates)';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(s)) return SURROGATE_MESSAGE;
  return null;
}

/**
 * The first string value or object key (in document order) that PostgreSQL cannot store, with its dotted path
 * (array indexes included, '' for the root) and the reason; null when there is none. Iterative: any depth is safe.
 */
export function findUnstorableText(value: unknown): { path: string; message: string } | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const message = problemOf(v);
      if (message) return { path, message };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      const message = problemOf(key);
      if (message) return { path: join(path, key), message };
      stack.push([child, join(path, key)]);
    }
  }
  return null;
}
