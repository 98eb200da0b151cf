import { ValidationError } from '../../../shared/errors/app-error.js';
import { charLength, MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';

/** docs/domain.md §1 text limits for projects and groups: names 1–200 after trimming, descriptions ≤ 100,000. */
export function projectName(value: unknown, field = 'name'): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '' || charLength(name) > MAX_TITLE) {
    throw new ValidationError('Invalid arguments', [{ field, message: `must be 1-${MAX_TITLE} characters after trimming` }]);
  }
  return name;
}

export function projectDescription(value: unknown, field = 'description'): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > MAX_LONG_TEXT) {
    throw new ValidationError('Invalid arguments', [{ field, message: `must be a string of at most ${MAX_LONG_TEXT} characters` }]);
  }
  return value;
}

/** Completion rate in 0–1 with two decimals; 0 when there is nothing to complete. */
export function completionRate(completed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.round((completed / total) * 100) / 100;
}
