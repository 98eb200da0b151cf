/** Pure helpers of svc_search: LIKE patterns and result snippets. */

export const SEARCH_SNIPPET_LENGTH = 200;
/** Characters of context kept before the first match when the snippet has to start mid-text. */
const LEAD = 40;
const ELLIPSIS = '...';

/** `%query%` for ILIKE … ESCAPE '\', with the query's own wildcards and backslashes taken literally. */
export function containsPattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * At most 200 characters of `text` (whitespace collapsed) showing the first case-insensitive match of `query`:
 * the start of the text when the match fits there (or there is none), else a window around it; cut ends are
 * marked with "...". Counted in code points.
 */
export function searchSnippet(text: string | null | undefined, query: string, max = SEARCH_SNIPPET_LENGTH): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  const needle = query.replace(/\s+/g, ' ').trim();
  const found = needle ? new RegExp(escapeRegExp(needle), 'iu').exec(flat) : null;
  const head = (): string => chars.slice(0, max - ELLIPSIS.length).join('') + ELLIPSIS;
  if (!found) return head();
  const start = Array.from(flat.slice(0, found.index)).length;
  const length = Array.from(found[0]).length;
  if (start + length <= max - ELLIPSIS.length) return head();
  // "..." + window (+ "..." when the text goes on) within `max`.
  const from = Math.max(0, Math.min(start - LEAD, chars.length - (max - ELLIPSIS.length)));
  const room = max - ELLIPSIS.length;
  if (from + room >= chars.length) return ELLIPSIS + chars.slice(from).join('');
  return ELLIPSIS + chars.slice(from, from + room - ELLIPSIS.length).join('') + ELLIPSIS;
}
