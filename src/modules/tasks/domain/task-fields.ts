import { ValidationError } from '../../../shared/errors/app-error.js';
import { charLength } from '../../../shared/validation/text-rules.js';

/**
 * Value sets and limits of the task inputs (docs/domain.md §6, docs/tool-conventions.md §5.2–§5.8): one definition, referenced by the DTOs
 * (which check them at the edge and publish them in tools/list and /api/docs) and by the task rules.
 */
export const PRIORITIES = ['low', 'medium', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const MARK_STATUSES = ['passed', 'failed', 'pending'] as const;
export type MarkStatus = (typeof MARK_STATUSES)[number];

/** One criterion mark as the rules apply it (verification or self-check). */
export interface MarkInput {
  uuid: string;
  status: MarkStatus;
  evidence: string | null;
}
/** The assignee's own marks never reset a criterion to pending. */
export const SELF_CHECK_STATUSES = ['passed', 'failed'] as const;

/** The moves an assignee makes with svc_update_task / svc_report_work (start, submit, pull back). */
export const OPERATIONAL_STATUSES = ['in_progress', 'to_verify'] as const;
export type OperationalStatus = (typeof OPERATIONAL_STATUSES)[number];

export const STORY_POINTS = { minimum: 0, maximum: 1000 } as const;
export const MAX_CRITERIA = 50;
export const MAX_CRITERION_LENGTH = 2000;
export const MAX_TASKS_PER_CALL = 50;
/** Batch-local draft ids of svc_create_tasks. */
export const MAX_DRAFT_ID_LENGTH = 64;
export const MAX_PROPOSAL_FILTER = 20;
export const MAX_SUMMARY = 10_000;
export const MAX_WORK_REPORT = 20_000;

/** Titles: 1–200 characters after trimming (docs/domain.md §1); `prefix` names the task of a batch. Returns the trimmed title. */
export function cleanTitle(title: string, prefix = ''): string {
  const t = title.trim();
  if (t === '' || charLength(t) > 200) throw new ValidationError(`${prefix}Title must be 1-200 characters`);
  return t;
}

/** Required text of 1..max characters after trimming (work reports). */
export function requiredText(value: string, max: number, what: string): string {
  const t = value.trim();
  if (t.length < 1 || t.length > max) throw new ValidationError(`${what} must be 1-${max} characters`);
  return t;
}

/** A uuid list as the rules use it: lower-case, each once. */
export function distinctUuids(values: readonly string[] | null | undefined): string[] {
  return [...new Set((values ?? []).map((v) => v.toLowerCase()))];
}
