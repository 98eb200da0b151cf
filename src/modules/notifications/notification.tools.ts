import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { AgentInboxService, type AgentInboxAnswer } from './agent-inbox.service.js';
import { ListNotificationsArgsDto, MarkNotificationReadArgsDto, SnoozeNotificationArgsDto, UnarchiveNotificationArgsDto } from './dto/notification.dto.js';
import type { NotificationRecord } from './notification.records.js';
import { NotificationService } from './notification.service.js';

/** The agent-facing notification tools (docs/tool-conventions.md §5.2, docs/notifications.md §7). The recipient is always the caller. */
@Injectable()
export class NotificationTools {
  constructor(
    private readonly agentInbox: AgentInboxService,
    private readonly notifications: NotificationService,
  ) {}

  @Tool({
    name: 'svc_get_notifications',
    title: 'Get notifications',
    hint: 'W',
    description:
      'Lists your notifications newest first and marks the unread ones returned as read unless autoMarkRead is false. Mark others with svc_mark_notification_read.',
    input: ListNotificationsArgsDto,
  })
  list(args: ListNotificationsArgsDto, ctx: ToolContext): Promise<AgentInboxAnswer> {
    return this.agentInbox.list(ctx.actor, args, ctx.signal);
  }

  @Tool({
    name: 'svc_mark_notification_read',
    title: 'Mark notifications read',
    hint: 'WI',
    description: 'Marks one of your notifications, or all of them, as read. List them with svc_get_notifications.',
    input: MarkNotificationReadArgsDto,
  })
  markRead(
    args: MarkNotificationReadArgsDto,
    ctx: ToolContext,
  ): Promise<{ notification: NotificationRecord } | { count: number }> {
    return this.agentInbox.markRead(ctx.actor, args);
  }

  @Tool({
    name: 'svc_snooze_notification',
    title: 'Snooze notification',
    hint: 'WI',
    description:
      'Hides one of your notifications until a time at least three minutes ahead, when it returns unread. List them with svc_get_notifications.',
    input: SnoozeNotificationArgsDto,
  })
  snooze(args: SnoozeNotificationArgsDto, ctx: ToolContext): Promise<{ notification: NotificationRecord }> {
    return this.agentInbox.snooze(ctx.actor, args);
  }

  @Tool({
    name: 'svc_unarchive_notification',
    title: 'Unarchive notification',
    hint: 'WI',
    description: 'Brings back one of your archived notifications. List them with svc_get_notifications.',
    input: UnarchiveNotificationArgsDto,
  })
  async unarchive(args: UnarchiveNotificationArgsDto, ctx: ToolContext): Promise<{ notification: NotificationRecord }> {
    return { notification: await this.notifications.unarchive(ctx.actor, args.notificationUuid) };
  }
}
