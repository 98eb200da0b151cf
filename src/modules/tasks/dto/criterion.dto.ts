import { BooleanField, TextField } from '../../../shared/validation/fields.js';

/** One acceptance criterion of a task or task draft (blank ones are dropped by the service, domain.md §2.10). */
export class CriterionDto {
  @TextField({ maxLength: 2000, description: 'What must be true; 1-2000 characters' })
  description: string;

  @BooleanField({ optional: true, nullable: true, description: 'Required for verification (default true)' })
  required?: boolean | null;
}
