import { ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { TASK_STATUSES, type TaskStatus } from './domain/task-transition.js';
import type { MarkStatus, Priority } from './task.entity.js';

/** Text limits of domain.md §1 and the enum inputs of tools.md §5, checked in the service after trimming. */
export const PRIORITIES: readonly Priority[] = ['low', 'medium', 'high'];

export function cleanTitle(title: unknown, prefix = ''): string {
  const t = typeof title === 'string' ? title.trim() : '';
  if (t.length < 1 || t.length > 200) throw new ValidationError(`${prefix}Title must be 1-200 characters`);
  return t;
}

export function cleanDescription(description: unknown, prefix = ''): string {
  if (description == null) return '';
  if (typeof description !== 'string') throw new ValidationError(`${prefix}Description must be a string`);
  if (description.length > 100_000) throw new ValidationError(`${prefix}Description must be at most 100000 characters`);
  return description;
}

export function cleanPriority(priority: unknown, prefix = ''): Priority {
  if (!(PRIORITIES as readonly unknown[]).includes(priority)) throw new ValidationError(`${prefix}Invalid priority: ${String(priority)}`);
  return priority as Priority;
}

export function cleanStoryPoints(points: unknown, prefix = ''): number | null {
  if (points === null) return null;
  if (typeof points !== 'number' || !Number.isFinite(points) || points < 0 || points > 1000) {
    throw new ValidationError(`${prefix}Story points must be a number between 0 and 1000`);
  }
  return points;
}

export function cleanStatus(status: unknown): TaskStatus {
  if (!(TASK_STATUSES as readonly unknown[]).includes(status)) throw new ValidationError(`Invalid status: ${String(status)}`);
  return status as TaskStatus;
}

/** Optional free text with a maximum length (summaries, reasons, evidence). */
export function optionalText(value: unknown, max: number, what: string): string | null {
  if (value == null) return null;
  if (typeof value !== 'string') throw new ValidationError(`${what} must be a string`);
  if (value.length > max) throw new ValidationError(`${what} must be at most ${max} characters`);
  return value;
}

/** Required text of 1..max characters after trimming (comments, work reports). */
export function requiredText(value: unknown, max: number, what: string): string {
  const t = typeof value === 'string' ? value.trim() : '';
  if (t.length < 1 || t.length > max) throw new ValidationError(`${what} must be 1-${max} characters`);
  return t;
}

export function uuidList(values: unknown, what: string, max = Infinity): string[] {
  if (values == null) return [];
  if (!Array.isArray(values) || values.some((v) => !isUuid(v))) throw new ValidationError(`${what} must be a list of uuids`);
  if (values.length > max) throw new ValidationError(`${what} must name at most ${max} uuids`);
  return [...new Set(values.map((v: string) => v.toLowerCase()))];
}

export interface MarkInput {
  uuid: string;
  status: MarkStatus;
  evidence: string | null;
}

/** The `criteria` list of self-check and verification marks: 1–50 items, statuses from `allowed`. */
export function markList(items: unknown, allowed: readonly MarkStatus[], statusKey: 'devStatus' | 'status', evidenceKey: 'devEvidence' | 'evidence'): MarkInput[] {
  if (!Array.isArray(items) || items.length < 1 || items.length > 50) throw new ValidationError('Between 1 and 50 criteria are required');
  return items.map((raw: Record<string, unknown>) => {
    const status = raw?.[statusKey];
    if (!(allowed as readonly unknown[]).includes(status)) throw new ValidationError(`Invalid ${statusKey}: ${String(status)}`);
    return { uuid: String(raw.uuid ?? ''), status: status as MarkStatus, evidence: optionalText(raw[evidenceKey], 2000, 'Evidence') };
  });
}
