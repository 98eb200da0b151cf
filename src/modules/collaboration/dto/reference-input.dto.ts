import { EnumField, TextField } from '../../../shared/validation/fields.js';
import { MAX_TITLE } from '../../../shared/validation/text-rules.js';
import type { ReferenceType } from '../collaboration.entity.js';
import { MAX_REFERENCE_NOTES, MAX_URL_LENGTH, REFERENCE_TYPES } from '../domain/reference.rules.js';

/** One external link given when a record is created (ideas, proposals, tasks); the URL rule is the service's. */
export class ReferenceInputDto {
  @EnumField(REFERENCE_TYPES, { description: 'Kind of link' })
  type: ReferenceType;

  @TextField({ maxLength: MAX_URL_LENGTH, description: 'http:// or https:// URL; never fetched' })
  url: string;

  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Link title' })
  title: string;

  @TextField({ optional: true, maxLength: MAX_REFERENCE_NOTES, description: `Notes, at most ${MAX_REFERENCE_NOTES} characters` })
  notes?: string;
}
