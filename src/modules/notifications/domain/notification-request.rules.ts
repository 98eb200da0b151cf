/**
 * Input parsing of the notification routes and tools (notifications.md §2.1, §6, §7). Pure; every refusal is a
 * VALIDATION_ERROR with one `details` entry per problem.
 */
import { ValidationError, type FieldIssue } from '../../../shared/errors/app-error.js';
import { PREFERENCE_FIELDS, type PreferenceField } from './notification.rules.js';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d+$/;

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export interface ListQuery {
  limit: number;
  offset: number;
  unreadOnly: boolean;
  projectUuid: string | null;
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
  };
}

/** §2.1 read-all body: optional; an object whose `projectUuid`, when present, is a uuid. Other fields ignored. */
export function parseReadAllBody(body: unknown): { projectUuid: string | null } {
  if (body === undefined) return { projectUuid: null };
  if (!isObject(body)) throw new ValidationError('Request body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
  return { projectUuid: body.projectUuid === undefined ? null : projectUuidOf(body.projectUuid) };
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
}

/** notifications.md §7 defaults: unread ones, marked read as they are listed. */
export function parseAgentListInput(input: AgentListInput): { status: AgentStatusFilter; projectUuid: string | null; autoMarkRead: boolean } {
  return { status: input.status ?? 'unread', projectUuid: input.projectUuid?.toLowerCase() ?? null, autoMarkRead: input.autoMarkRead ?? true };
}

export interface MarkReadInput {
  notificationUuid?: string;
  all?: boolean;
  projectUuid?: string;
}

/** `svc_mark_notification_read`: exactly one of `notificationUuid` or `all: true`. */
export function parseMarkReadInput(input: MarkReadInput): { notificationUuid: string } | { all: true; projectUuid: string | null } {
  const one = input.notificationUuid !== undefined;
  const all = input.all === true;
  if (one === all) throw new ValidationError('notificationUuid or all=true required');
  if (input.notificationUuid !== undefined) return { notificationUuid: input.notificationUuid };
  return { all: true, projectUuid: input.projectUuid?.toLowerCase() ?? null };
}

/** Weak comparison of `If-None-Match` against an entity tag (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  const want = strip(tag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === want);
}
