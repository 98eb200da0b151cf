import { ValidationError } from '../../../shared/errors/app-error.js';
import { charLength, MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { validateReference, type ReferenceInput, type ValidReference } from '../../collaboration/index.js';
import type { IdeaStatus } from '../idea.entity.js';

export const IDEA_STATUSES: readonly IdeaStatus[] = ['open', 'elaborating', 'elaborated'];

const invalid = (field: string, message: string): ValidationError => new ValidationError('Invalid arguments', [{ field, message }]);

/** Titles: 1–200 characters after trimming (docs/domain.md §1). */
export function ideaTitle(value: unknown, field = 'title'): string {
  const title = typeof value === 'string' ? value.trim() : '';
  if (title === '' || charLength(title) > MAX_TITLE) throw invalid(field, `must be 1-${MAX_TITLE} characters after trimming`);
  return title;
}

/** Idea content: at most 100,000 characters, default empty. */
export function ideaContent(value: unknown, field = 'content'): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > MAX_LONG_TEXT) throw invalid(field, `must be a string of at most ${MAX_LONG_TEXT} characters`);
  return value;
}

/** References given at creation: the URL rule and the text limits after trimming (their number is the DTO's). */
export function ideaReferences(list: ReferenceInput[] | undefined): ValidReference[] {
  return (list ?? []).map((r) => validateReference(r));
}
