import { ValidationError } from '../errors/app-error.js';

/** Text limits of docs/domain.md §1 (titles and names, descriptions and contents, review notes and evidence). */
export const MAX_TITLE = 200;
export const MAX_LONG_TEXT = 100_000;
export const MAX_NOTE = 2000;

/** Text limits are counted in characters (code points) as PostgreSQL's char_length does. */
export const charLength = (s: string): number => [...s].length;

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${label(field)} ${message}`, [{ field, message }]);
};

const label = (field: string): string => field.charAt(0).toUpperCase() + field.slice(1).replace(/([A-Z])/g, ' $1').toLowerCase();

/** Titles and names: 1–200 after trimming; blank is rejected. Returns the trimmed text. */
export function titleText(value: unknown, field = 'title'): string {
  if (typeof value !== 'string') return fail(field, 'must be a string');
  const t = value.trim();
  if (t === '') return fail(field, 'must not be blank');
  if (charLength(t) > MAX_TITLE) return fail(field, `must be at most ${MAX_TITLE} characters`);
  return t;
}

/** Descriptions and contents: at most `max` characters (default 100,000), stored as given. */
export function longText(value: unknown, field: string, max = MAX_LONG_TEXT): string {
  if (typeof value !== 'string') return fail(field, 'must be a string');
  if (charLength(value) > max) return fail(field, `must be at most ${max} characters`);
  return value;
}

/** Review notes: at most 2,000; `required` also rejects a blank note. Returns the trimmed note or null. */
export function reviewNote(value: unknown, required: boolean): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    if (required) throw new ValidationError('A review note is required', [{ field: 'reviewNote', message: 'is required' }]);
    return null;
  }
  if (typeof value !== 'string') return fail('reviewNote', 'must be a string');
  const t = value.trim();
  if (charLength(t) > MAX_NOTE) return fail('reviewNote', `must be at most ${MAX_NOTE} characters`);
  return t;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    return fail(field, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}
