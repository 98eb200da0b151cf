/**
 * The inbox's input forms (docs/notifications.md §2.0, §2.1), read the same way from a query string, a body or a tool's
 * arguments: positions, keyset cursors, wait lengths and snooze times. Each reader answers the parsed value, or null
 * for anything else (the REST DTOs' `@Transform`s, whose checks then refuse the null; the tool adapters refuse it
 * with `invalid`).
 */
import { ValidationError } from '../../shared/errors/app-error.js';
import { parsePosition } from '../../shared/stream-log/position.js';
import { MAX_WAIT_SECONDS, type PositionInput } from './domain/inbox.rules.js';

export const POSITION_MESSAGE = 'must be a stream position';
export const CURSOR_MESSAGE = 'must be a cursor from a previous answer';
export const WAIT_MESSAGE = `must be an integer from 1 to ${MAX_WAIT_SECONDS}`;
export const WAIT_ALONE_MESSAGE = 'requires after';
export const UNTIL_MESSAGE = 'must be an ISO 8601 time with a time zone';

/** VALIDATION_ERROR on one field. */
export const invalid = (field: string, message: string): ValidationError => new ValidationError('Invalid input', [{ field, message }]);

/** A position argument (`after`, `upTo`) in the `<epoch>-<n>` form; not yet checked against the log. */
export function positionOf(v: unknown): PositionInput | null {
  return typeof v === 'string' ? parsePosition(v) : null;
}

/** A keyset cursor (§2.0): the last row's `created_at` in microseconds and its uuid; `top` starts at the newest. */
export type Cursor = { micros: string; uuid: string } | 'top';

const CURSOR = /^(0|[1-9][0-9]{0,17}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** `cursor`: empty starts at the top; otherwise only a cursor this service issued. */
export function cursorOf(v: unknown): Cursor | null {
  if (v === '') return 'top';
  const m = typeof v === 'string' && v.length <= 100 ? CURSOR.exec(Buffer.from(v, 'base64url').toString('latin1')) : null;
  return m ? { micros: m[1], uuid: m[2] } : null;
}

/** The opaque cursor of a row (`nextCursor`). */
export function formatCursor(micros: string, uuid: string): string {
  return Buffer.from(`${micros}:${uuid}`, 'latin1').toString('base64url');
}

/** `waitSeconds`: an integer from 1 to MAX_WAIT_SECONDS (a number, or its digits in a query string). */
export function waitSecondsOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,3}$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_WAIT_SECONDS ? n : null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A snooze's `until`: an ISO 8601 time with a time zone (the window is the service's: checkSnoozeWindow). */
export function isoTimeOf(v: unknown): Date | null {
  const t = typeof v === 'string' && ISO_TIME.test(v) ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : new Date(t);
}
