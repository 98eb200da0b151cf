import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, IntegerField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';

/** `svc_get_notifications`' `status` (docs/notifications.md §7). */
export const AGENT_STATUS_FILTERS = ['unread', 'read', 'all'] as const;
export type AgentStatusFilter = (typeof AGENT_STATUS_FILTERS)[number];

/** Arguments of the agent-facing notification tools (docs/tool-conventions.md §5.2, docs/notifications.md §7). */
class NotificationFilterDto {
  @EnumField(AGENT_STATUS_FILTERS, { optional: true, description: 'Which notifications to list (default unread)' })
  status?: AgentStatusFilter;

  @UuidField({ optional: true, description: 'Only notifications of this project' })
  projectUuid?: string;

  @BooleanField({ optional: true, description: 'Mark the unread notifications returned as read (default true)' })
  autoMarkRead?: boolean;

  @TextField({ optional: true, maxLength: 40, description: 'A delta: what changed after this position (from a previous answer); marks nothing' })
  after?: string;

  @IntegerField({ optional: true, minimum: 1, maximum: 30, description: 'With after: wait up to this many seconds for a change' })
  waitSeconds?: number;

  @TextField({ optional: true, maxLength: 100, description: 'Keyset paging: empty for the first page, then the previous nextCursor' })
  cursor?: string;
}

export class ListNotificationsArgsDto extends IntersectionType(NotificationFilterDto, PagingArgsDto) {}

export class MarkNotificationReadArgsDto {
  @UuidField({ optional: true, description: 'The notification to mark read' })
  notificationUuid?: string;

  @BooleanField({ optional: true, description: 'true: mark all your unread notifications read (instead of notificationUuid)' })
  all?: boolean;

  @UuidField({ optional: true, description: 'With all: only this project' })
  projectUuid?: string;

  @TextField({ optional: true, maxLength: 40, description: 'With all: only notifications that arrived at or before this position' })
  upTo?: string;
}

export class SnoozeNotificationArgsDto extends UuidArgs('notificationUuid', 'The notification to snooze') {
  @TextField({ maxLength: 40, description: 'ISO time, at least 3 minutes ahead, when it comes back unread' })
  until!: string;
}

export class UnarchiveNotificationArgsDto extends UuidArgs('notificationUuid', 'The archived notification to bring back') {}
