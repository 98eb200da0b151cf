import { BooleanField, TextField } from '../../../shared/validation/fields.js';
import { MAX_CRITERION_LENGTH } from '../domain/task-fields.js';

/** One acceptance criterion of a task or task draft (blank ones are dropped by the service, docs/domain.md §2.10). */
export class CriterionDto {
  @TextField({ maxLength: MAX_CRITERION_LENGTH, description: `What must be true; 1-${MAX_CRITERION_LENGTH} characters` })
  description: string;

  @BooleanField({ optional: true, description: 'Required for verification (default true)' })
  required?: boolean;
}
