/**
 * Rules of the inbox (docs/notifications.md §2.0, §2.1; README "The agent inbox"): list and delta bounds, waits, the
 * snooze window and the poll hint. Pure.
 */
import { ValidationError } from '../../../shared/errors/app-error.js';

/** §2.1: a list page holds `limit` rows, 1–100, 50 by default. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** A delta answer holds at most this many records and this many bytes of them (a position is never split). */
export const DELTA_MAX_RECORDS = 100;
export const DELTA_MAX_BYTES = 64 * 1024;

/** A wait lasts 1 to MAX_WAIT_SECONDS. */
export const MAX_WAIT_SECONDS = 30;

/** Snoozes end at least this far ahead, and at most a year ahead. */
export const MIN_SNOOZE_MS = 3 * 60_000;
export const MAX_SNOOZE_MS = 366 * 24 * 3600_000;

/** The stream-position form, as a caller passes it back (`after`, `upTo`): `<epoch>-<n>`. */
export interface PositionInput {
  epoch: string;
  n: number;
}

/** A position of another log, or ahead of the caller's head: the caller lists again to get a current one. */
export const unknownPosition = (field: string): ValidationError =>
  new ValidationError('Invalid input', [{ field, message: 'unknown position: list the notifications to get a current one' }]);

/** The snooze window, against the current time: 3 minutes to a year ahead, else VALIDATION_ERROR on `until`. */
export function checkSnoozeWindow(until: Date, now: number): Date {
  const ahead = until.getTime() - now;
  if (ahead < MIN_SNOOZE_MS) throw new ValidationError('Invalid input', [{ field: 'until', message: 'must be at least 3 minutes ahead' }]);
  if (ahead > MAX_SNOOZE_MS) throw new ValidationError('Invalid input', [{ field: 'until', message: 'must be at most a year ahead' }]);
  return until;
}

/** `pollAfterSeconds` / `X-Poll-Interval` on an idle service; a wait's answer asks for no pause then. */
export const BASE_POLL_SECONDS = 2;

/**
 * The pause the service asks a poller for before its next request: BASE_POLL_SECONDS when idle, none after a wait's
 * answer (waiting again at once is the intended pattern), and longer the more requests queue for a database
 * connection (up to five times, plus 2 s for a wait's answer).
 */
export function pollAfterSeconds(waited: boolean, pool: { waiting: number; size: number }): number {
  const load = Math.min(4, Math.floor((4 * pool.waiting) / Math.max(1, pool.size)));
  return waited ? BASE_POLL_SECONDS * load : BASE_POLL_SECONDS * (1 + load);
}
