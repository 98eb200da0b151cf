import { ValidationError } from '../../../shared/errors/app-error.js';
import { MAX_TITLE } from '../../../shared/validation/text-rules.js';
import type { ReferenceType } from '../collaboration.entity.js';

export const REFERENCE_TYPES: readonly ReferenceType[] = ['docs', 'repo', 'issue_pr', 'paper_blog'];
export const MAX_REFERENCES_PER_TARGET = 50;
/** References a record may be created with (svc_pm_create_idea, svc_pm_create_proposal, svc_create_tasks). */
export const MAX_REFERENCES_ON_CREATE = 10;
export const MAX_URL_LENGTH = 2048;
export const MAX_REFERENCE_NOTES = 500;

export interface ReferenceInput {
  type: string;
  url: string;
  title: string;
  notes?: string | null;
}

export interface ValidReference {
  type: ReferenceType;
  url: string;
  title: string;
  notes: string | null;
}

/** docs/domain.md §2.15: URL must start with http:// or https:// (never fetched), ≤ 2,048; title 1–200; notes ≤ 500. */
export function validateReference(input: ReferenceInput): ValidReference {
  if (!(REFERENCE_TYPES as readonly string[]).includes(input.type)) {
    throw new ValidationError(`Invalid reference type: ${input.type}`);
  }
  const url = typeof input.url === 'string' ? input.url.trim() : '';
  if (!/^https?:\/\//i.test(url)) throw new ValidationError('URL must start with http:// or https://');
  if (url.length > MAX_URL_LENGTH) throw new ValidationError(`URL must be at most ${MAX_URL_LENGTH} characters`);
  const title = typeof input.title === 'string' ? input.title.trim() : '';
  if (title.length < 1 || title.length > MAX_TITLE) throw new ValidationError(`Reference title must be 1-${MAX_TITLE} characters`);
  const notes = input.notes == null ? null : input.notes;
  if (notes !== null && notes.length > MAX_REFERENCE_NOTES) throw new ValidationError(`Reference notes must be at most ${MAX_REFERENCE_NOTES} characters`);
  return { type: input.type as ReferenceType, url, title, notes };
}
