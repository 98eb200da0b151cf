import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, ValidateIf } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { isUuid } from '../../../shared/validation/uuid-param.pipe.js';
import type { PositionInput } from '../domain/inbox.rules.js';
import { isoTimeOf, POSITION_MESSAGE, positionOf, UNTIL_MESSAGE } from '../inbox-inputs.js';
import { Parsed } from './parsed.js';

/** The bodies of the inbox routes (docs/notifications.md §2.1, §2.0); read by InboxBody, which ignores or refuses other fields. */

/**
 * `POST /api/notifications/read-all`, optional: one project, and with `upTo` only the notifications that arrived at
 * or before that position. `upTo` is checked once `projectUuid` passed (one refusal at a time).
 */
export class ReadAllNotificationsBody {
  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: 'Only this project' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value))
  @ValidateIf((_body: object, value: unknown) => value !== undefined)
  @IsEntityUuid()
  projectUuid?: string;

  @ApiPropertyOptional({ type: 'string', description: 'Only notifications that arrived at or before this stream position' })
  @Transform(({ value }) => positionOf(value))
  @ValidateIf((b: ReadAllNotificationsBody) => b.upTo !== undefined && (b.projectUuid === undefined || isUuid(b.projectUuid)))
  @Parsed(POSITION_MESSAGE)
  upTo?: PositionInput;
}

/** `PATCH /api/notifications/{uuid}/snooze`: the time it comes back (the 3-minute-to-a-year window is the service's). */
export class SnoozeNotificationBody {
  @ApiProperty({ type: 'string', format: 'date-time', description: 'At least 3 minutes ahead' })
  @Transform(({ value }) => isoTimeOf(value))
  @Parsed(UNTIL_MESSAGE)
  until!: Date;
}

/** One preference flag: left out keeps its value; anything but a boolean is refused. */
const Flag = (): PropertyDecorator =>
  applyDecorators(ApiPropertyOptional({ type: 'boolean' }), ValidateIf((_body: object, value: unknown) => value !== undefined), IsBoolean({ message: 'must be a boolean' }));

/** `PUT /api/notifications/preferences` (docs/notifications.md §6): any subset of the twelve flags. */
export class NotificationPreferencesBody {
  @Flag() taskAssigned?: boolean;
  @Flag() taskStatusChanged?: boolean;
  @Flag() taskVerified?: boolean;
  @Flag() taskReopened?: boolean;
  @Flag() proposalSubmitted?: boolean;
  @Flag() proposalApproved?: boolean;
  @Flag() proposalRejected?: boolean;
  @Flag() ideaClaimed?: boolean;
  @Flag() commentAdded?: boolean;
  @Flag() elaborationRequested?: boolean;
  @Flag() elaborationAnswered?: boolean;
  @Flag() mentioned?: boolean;
}
