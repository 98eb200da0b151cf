/**
 * Input parsing of the notification routes and tools (notifications.md §2.1, §6, §7). Pure; every refusal is a
 * VALIDATION_ERROR with one `details` entry per problem.
 */
import { ValidationError, type FieldIssue } from '../../../shared/errors/app-error.js';
import { parsePosition } from '../../../shared/stream-log/position.js';
import { PREFERENCE_FIELDS, type PreferenceField } from './notification.rules.js';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d+$/;

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** A keyset cursor (§2.0): the last row's `created_at` in microseconds and its uuid; `top` starts at the newest. */
export type Cursor = { micros: string; uuid: string } | 'top';

export interface ListQuery {
  limit: number;
  offset: number;
  unreadOnly: boolean;
  projectUuid: string | null;
  /** Set in cursor mode (then `offset` is not used). */
  cursor: Cursor | null;
}

/** A parsed (not yet checked against the log) position: `epoch` and counter. */
export interface PositionInput {
  epoch: string;
  n: number;
}

export const MAX_WAIT_SECONDS = 30;
/** Snoozes end at least this far ahead (§2.0), and at most a year ahead. */
export const MIN_SNOOZE_MS = 3 * 60_000;
export const MAX_SNOOZE_MS = 366 * 24 * 3600_000;

const invalid = (field: string, message: string): ValidationError => new ValidationError('Invalid input', [{ field, message }]);

/** A position argument (`after`, `upTo`): the `<epoch>-<n>` form, else VALIDATION_ERROR on the field. */
export function parsePositionInput(field: string, v: unknown): PositionInput {
  const p = typeof v === 'string' ? parsePosition(v) : null;
  if (!p) throw invalid(field, 'must be a stream position');
  return p;
}

const CURSOR = /^(0|[1-9][0-9]{0,17}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** `cursor`: empty starts at the top; anything but a cursor this service issued is VALIDATION_ERROR on `cursor`. */
export function parseCursor(v: unknown): Cursor {
  if (v === '') return 'top';
  const m = typeof v === 'string' && v.length <= 100 ? CURSOR.exec(Buffer.from(v, 'base64url').toString('latin1')) : null;
  if (!m) throw invalid('cursor', 'must be a cursor from a previous answer');
  return { micros: m[1], uuid: m[2] };
}

/** The opaque cursor of a row (`nextCursor`). */
export function formatCursor(micros: string, uuid: string): string {
  return Buffer.from(`${micros}:${uuid}`, 'latin1').toString('base64url');
}

/** `waitSeconds` (1–30, only with `after`): an integer, else VALIDATION_ERROR on `waitSeconds`. */
export function parseWaitSeconds(v: unknown, hasAfter: boolean): number | null {
  if (v === undefined) return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,3}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WAIT_SECONDS) throw invalid('waitSeconds', `must be an integer from 1 to ${MAX_WAIT_SECONDS}`);
  if (!hasAfter) throw invalid('waitSeconds', 'requires after');
  return n;
}

/** A delta request (§2.0): the list filters and paging are ignored. */
export interface DeltaQuery {
  after: PositionInput;
  waitSeconds: number | null;
}

/** The REST list query: a delta when `after` is present, else a page (offset or cursor). */
export function parseInboxQuery(query: unknown): { delta: DeltaQuery } | { list: ListQuery } {
  const q = isObject(query) ? query : {};
  if (q.after === undefined) {
    parseWaitSeconds(q.waitSeconds, false);
    return { list: parseListQuery(q) };
  }
  return { delta: { after: parsePositionInput('after', q.after), waitSeconds: parseWaitSeconds(q.waitSeconds, true) } };
}

/** `PATCH …/snooze` `{until}` and the tool's `until`: an ISO time 3 minutes to a year ahead of `now`. */
export function parseSnoozeUntil(v: unknown, now: number): Date {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
  const t = typeof v === 'string' && iso.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) throw invalid('until', 'must be an ISO 8601 time with a time zone');
  if (t - now < MIN_SNOOZE_MS) throw invalid('until', 'must be at least 3 minutes ahead');
  if (t - now > MAX_SNOOZE_MS) throw invalid('until', 'must be at most a year ahead');
  return new Date(t);
}

/** The snooze body: a JSON object with `until`. */
export function parseSnoozeBody(body: unknown, now: number): Date {
  if (!isObject(body)) throw new ValidationError('Request body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
  return parseSnoozeUntil(body.until, now);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An integer string (optional minus, digits) or null for anything else; huge values stay finite. */
function integerOrNull(v: unknown): number | null {
  if (typeof v !== 'string' || !INTEGER.test(v)) return null;
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(v)));
}

function projectUuidOf(v: unknown): string {
  if (typeof v !== 'string' || !CANONICAL_UUID.test(v)) {
    throw new ValidationError('Invalid input', [{ field: 'projectUuid', message: 'must be a uuid' }]);
  }
  return v.toLowerCase();
}

/** §2.1: `limit` and `offset` are clamped, never rejected; only `projectUuid` can refuse the request. */
export function parseListQuery(query: unknown): ListQuery {
  const q = isObject(query) ? query : {};
  const limit = integerOrNull(q.limit);
  const offset = integerOrNull(q.offset);
  return {
    limit: limit === null ? DEFAULT_LIMIT : Math.min(MAX_LIMIT, Math.max(1, limit)),
    offset: offset === null ? 0 : Math.max(0, offset),
    unreadOnly: q.unreadOnly === 'true',
    projectUuid: q.projectUuid === undefined ? null : projectUuidOf(q.projectUuid),
    cursor: q.cursor === undefined ? null : parseCursor(q.cursor),
  };
}

/** §2.1 read-all body: optional; an object whose `projectUuid`, when present, is a uuid. Other fields ignored. */
export function parseReadAllBody(body: unknown): { projectUuid: string | null; upTo: PositionInput | null } {
  if (body === undefined) return { projectUuid: null, upTo: null };
  if (!isObject(body)) throw new ValidationError('Request body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
  return {
    projectUuid: body.projectUuid === undefined ? null : projectUuidOf(body.projectUuid),
    upTo: body.upTo === undefined ? null : parsePositionInput('upTo', body.upTo),
  };
}

/** §2.1 preferences PUT: every key one of the twelve names, every value a boolean; nothing is saved otherwise. */
export function parsePreferencesPatch(body: unknown): Partial<Record<PreferenceField, boolean>> {
  if (!isObject(body)) throw new ValidationError('Request body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
  const known = new Set<string>(PREFERENCE_FIELDS);
  const issues: FieldIssue[] = [];
  const patch: Partial<Record<PreferenceField, boolean>> = {};
  for (const [k, v] of Object.entries(body)) {
    if (!known.has(k)) issues.push({ field: k, message: 'Unknown field' });
    else if (typeof v !== 'boolean') issues.push({ field: k, message: 'must be a boolean' });
    else patch[k as PreferenceField] = v;
  }
  if (issues.length) throw new ValidationError('Invalid input', issues);
  return patch;
}

export const AGENT_STATUS_FILTERS = ['unread', 'read', 'all'] as const;
export type AgentStatusFilter = (typeof AGENT_STATUS_FILTERS)[number];

/** `svc_get_notifications` arguments (their shape checked by the tool's DTO). */
export interface AgentListInput {
  status?: AgentStatusFilter;
  projectUuid?: string;
  autoMarkRead?: boolean;
  page?: number;
  pageSize?: number;
  after?: string;
  waitSeconds?: number;
  cursor?: string;
}

/** notifications.md §7 defaults: unread ones, marked read as they are listed. `cursor` switches to keyset paging. */
export function parseAgentListInput(input: AgentListInput): {
  status: AgentStatusFilter;
  projectUuid: string | null;
  autoMarkRead: boolean;
  cursor: Cursor | null;
} {
  return {
    status: input.status ?? 'unread',
    projectUuid: input.projectUuid?.toLowerCase() ?? null,
    autoMarkRead: input.autoMarkRead ?? true,
    cursor: input.cursor === undefined ? null : parseCursor(input.cursor),
  };
}

/** `svc_get_notifications` with `after`: a delta (the list arguments are ignored), else null. */
export function parseAgentDelta(input: AgentListInput): DeltaQuery | null {
  if (input.after === undefined) {
    parseWaitSeconds(input.waitSeconds, false);
    return null;
  }
  return { after: parsePositionInput('after', input.after), waitSeconds: parseWaitSeconds(input.waitSeconds, true) };
}

export interface MarkReadInput {
  notificationUuid?: string;
  all?: boolean;
  projectUuid?: string;
  upTo?: string;
}

/** `svc_mark_notification_read`: exactly one of `notificationUuid` or `all: true` (with it, `projectUuid`, `upTo`). */
export function parseMarkReadInput(
  input: MarkReadInput,
): { notificationUuid: string } | { all: true; projectUuid: string | null; upTo: PositionInput | null } {
  const one = input.notificationUuid !== undefined;
  const all = input.all === true;
  if (one === all) throw new ValidationError('notificationUuid or all=true required');
  if (input.notificationUuid !== undefined) return { notificationUuid: input.notificationUuid };
  return {
    all: true,
    projectUuid: input.projectUuid?.toLowerCase() ?? null,
    upTo: input.upTo === undefined ? null : parsePositionInput('upTo', input.upTo),
  };
}

/** Weak comparison of `If-None-Match` against an entity tag (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  const want = strip(tag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === want);
}
