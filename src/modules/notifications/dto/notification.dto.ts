import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { AGENT_STATUS_FILTERS, type AgentStatusFilter } from '../domain/notification-request.rules.js';

/** Arguments of the agent-facing notification tools (tools.md §5.2, notifications.md §7). */
class NotificationFilterDto {
  @EnumField(AGENT_STATUS_FILTERS, { optional: true, description: 'Which notifications to list (default unread)' })
  status?: AgentStatusFilter;

  @UuidField({ optional: true, description: 'Only notifications of this project' })
  projectUuid?: string;

  @BooleanField({ optional: true, description: 'Mark the unread notifications returned as read (default true)' })
  autoMarkRead?: boolean;
}

export class ListNotificationsArgsDto extends IntersectionType(NotificationFilterDto, PagingArgsDto) {}

export class MarkNotificationReadArgsDto {
  @UuidField({ optional: true, description: 'The notification to mark read' })
  notificationUuid?: string;

  @BooleanField({ optional: true, description: 'true: mark all your unread notifications read (instead of notificationUuid)' })
  all?: boolean;

  @UuidField({ optional: true, description: 'With all: only this project' })
  projectUuid?: string;
}
