import { IsDateString } from 'class-validator';
import { PRESETS, ALL_PERMISSIONS } from '../../../shared/auth/permissions.js';
import { EnumField, TextField, TextListField } from '../../../shared/validation/fields.js';

// Preset and permission values are checked by the service so the messages match docs/platform.md §3 exactly.
const BY_SERVICE = { limits: 'service' } as const;
const PERMISSIONS = `Extra permission bits on top of the preset: ${ALL_PERMISSIONS.join(', ')}`;

export class CreateAgentDto {
  @TextField({ maxLength: 200 }) name: string;
  @EnumField(PRESETS, { ...BY_SERVICE, optional: true, description: 'Permission preset (default developer_agent)' }) preset?: string;
  @TextListField({ optional: true, description: PERMISSIONS }) permissions?: string[];
}

export class UpdateAgentDto {
  @TextField({ optional: true, maxLength: 200 }) name?: string;
  @EnumField(PRESETS, { ...BY_SERVICE, optional: true }) preset?: string;
  @TextListField({ optional: true, description: PERMISSIONS }) permissions?: string[];
}

export class CreateApiKeyDto {
  @TextField({ optional: true, maxLength: 100, description: 'A label for the key' }) name?: string;
  @TextField({ optional: true, description: 'ISO 8601 date-time; no expiry when absent' })
  @IsDateString({ strict: true })
  expiresAt?: string;
}
