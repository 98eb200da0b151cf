import { ValidationError } from '../../../shared/errors/app-error.js';

export interface CriterionInput {
  description: string;
  required?: boolean | null;
}

export interface NormalizedCriterion {
  description: string;
  required: boolean;
}

export const CRITERIA_REQUIRED_MESSAGE = 'At least one acceptance criterion with a non-empty description is required';

/**
 * docs/domain.md §2.10: descriptions trimmed, blank items dropped, `required` defaults to true; at least one must
 * remain. `prefix` lets batch callers name the task (`Task "<title>": …`).
 */
export function normalizeCriteria(items: readonly CriterionInput[] | null | undefined, prefix = ''): NormalizedCriterion[] {
  const out = (items ?? [])
    .map((i) => ({ description: (i.description ?? '').trim(), required: i.required ?? true }))
    .filter((i) => i.description !== '');
  if (out.length === 0) throw new ValidationError(prefix + CRITERIA_REQUIRED_MESSAGE);
  if (out.length > 50) throw new ValidationError(`${prefix}At most 50 acceptance criteria are allowed`);
  for (const c of out) {
    if (c.description.length > 2000) throw new ValidationError(`${prefix}Acceptance-criterion descriptions must be at most 2000 characters`);
  }
  return out;
}
