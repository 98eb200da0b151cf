import { ValidationError } from '../../../shared/errors/app-error.js';
import type { ReferenceType } from '../collaboration.entity.js';

export const REFERENCE_TYPES: readonly ReferenceType[] = ['docs', 'repo', 'issue_pr', 'paper_blog'];
export const MAX_REFERENCES_PER_TARGET = 50;

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

/** domain.md §2.15: URL must start with http:// or https:// (never fetched), ≤ 2,048; title 1–200; notes ≤ 500. */
export function validateReference(input: ReferenceInput): ValidReference {
  if (!(REFERENCE_TYPES as readonly string[]).includes(input.type)) {
    throw new ValidationError(`Invalid reference type: ${input.type}`);
  }
  const url = typeof input.url === 'string' ? input.url.trim() : '';
  if (!/^https?:\/\//i.test(url)) throw new ValidationError('URL must start with http:// or https://');
  if (url.length > 2048) throw new ValidationError('URL must be at most 2048 characters');
  const title = typeof input.title === 'string' ? input.title.trim() : '';
  if (title.length < 1 || title.length > 200) throw new ValidationError('Reference title must be 1-200 characters');
  const notes = input.notes == null ? null : input.notes;
  if (notes !== null && notes.length > 500) throw new ValidationError('Reference notes must be at most 500 characters');
  return { type: input.type as ReferenceType, url, title, notes };
}
