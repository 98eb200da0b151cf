import { TextField, UuidField } from '../../../shared/validation/fields.js';

// Text limits (1-200 after trimming, descriptions up to 100,000) are the service's, so REST and tools answer alike.
const BY_SERVICE = { limits: 'service' } as const;

export class CreateProjectDto {
  @TextField({ ...BY_SERVICE, maxLength: 200, example: 'Checkout' }) name: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) description?: string;
  @UuidField({ optional: true }) groupUuid?: string;
}

export class UpdateProjectDto {
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 200 }) name?: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) description?: string;
  @UuidField({ optional: true, nullable: true, description: 'null takes the project out of its group' }) groupUuid?: string | null;
}

export class CreateProjectGroupDto {
  @TextField({ ...BY_SERVICE, maxLength: 200 }) name: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) description?: string;
}

export class UpdateProjectGroupDto {
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 200 }) name?: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) description?: string;
}
