import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tools/index.js';
import { ListNotificationsArgsDto, MarkNotificationReadArgsDto } from './dto/notification.dto.js';
import type { NotificationRecord } from './notification.records.js';
import { NotificationService } from './notification.service.js';

/** The agent-facing notification tools (tools.md §5.2, notifications.md §7). The recipient is always the caller. */
@Injectable()
export class NotificationTools {
  constructor(private readonly notifications: NotificationService) {}

  @Tool({
    name: 'svc_get_notifications',
    title: 'Get notifications',
    hint: 'W',
    description:
      'Lists your notifications newest first and marks the unread ones returned as read unless autoMarkRead is false. Mark others with svc_mark_notification_read.',
    input: ListNotificationsArgsDto,
  })
  list(
    args: ListNotificationsArgsDto,
    ctx: ToolContext,
  ): Promise<{ notifications: NotificationRecord[]; page: number; pageSize: number; total: number; unreadCount: number }> {
    return this.notifications.getForAgent(ctx.actor, args);
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
    return this.notifications.markRead(ctx.actor, args);
  }
}
