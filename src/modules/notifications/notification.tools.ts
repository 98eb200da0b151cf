import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { paging, Tool, uuid, type ToolContext } from '../tools/index.js';
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
    input: z.strictObject({
      status: z.enum(['unread', 'read', 'all']).optional().describe('Which notifications to list (default unread)'),
      projectUuid: uuid('Only notifications of this project').optional(),
      autoMarkRead: z.boolean().optional().describe('Mark the unread notifications returned as read (default true)'),
      ...paging,
    }),
  })
  list(
    args: { status?: 'unread' | 'read' | 'all'; projectUuid?: string; autoMarkRead?: boolean; page?: number; pageSize?: number },
    ctx: ToolContext,
  ): Promise<{ notifications: NotificationRecord[]; page: number; pageSize: number; total: number; unreadCount: number }> {
    return this.notifications.getForAgent(ctx.actor, args);
  }

  @Tool({
    name: 'svc_mark_notification_read',
    title: 'Mark notifications read',
    hint: 'WI',
    description: 'Marks one of your notifications, or all of them, as read. List them with svc_get_notifications.',
    input: z.strictObject({
      notificationUuid: uuid('The notification to mark read').optional(),
      all: z.boolean().optional().describe('true: mark all your unread notifications read (instead of notificationUuid)'),
      projectUuid: uuid('With all: only this project').optional(),
    }),
  })
  markRead(
    args: { notificationUuid?: string; all?: boolean; projectUuid?: string },
    ctx: ToolContext,
  ): Promise<{ notification: NotificationRecord } | { count: number }> {
    return this.notifications.markRead(ctx.actor, args);
  }
}
