/**
 * PostgreSQL text and jsonb cannot hold U+0000: a string carrying it would reach the database and fail there
 * ("invalid byte sequence for encoding UTF8: 0x00") as a 500. Inputs are checked for it at the boundaries instead
 * (REST validation pipe, tool registry) and refused as VALIDATION_ERROR.
 */
export const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';

/**
 * The dotted path (array indexes included, '' for the root) of the first string value or object key that contains
 * U+0000, or null when there is none. Iterative, so any nesting depth is safe.
 */
export function findNulCharacter(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (key.includes('\u0000')) return join(path, key);
      stack.push([child, join(path, key)]);
    }
  }
  return null;
}
