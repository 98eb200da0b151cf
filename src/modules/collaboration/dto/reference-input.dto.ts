import { EnumField, TextField } from '../../../shared/validation/fields.js';
import { REFERENCE_TYPES } from '../domain/reference-input.js';

/** One external link given when a record is created (proposals, tasks); the URL rule is the service's. */
export class ReferenceInputDto {
  @EnumField(REFERENCE_TYPES, { description: 'Kind of link' })
  type: string;

  @TextField({ maxLength: 2048, description: 'http:// or https:// URL; never fetched' })
  url: string;

  @TextField({ maxLength: 200, description: 'Link title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, nullable: true, maxLength: 500, description: 'Notes, at most 500 characters' })
  notes?: string | null;
}
