import { toolPaths } from '../../../../test/utils/dto-check.js';
import { ListNotificationsArgsDto, MarkNotificationReadArgsDto } from './notification.dto.js';

describe('notification tool arguments', () => {
  it('svc_get_notifications: a known status, a boolean autoMarkRead, a uuid project', () => {
    expect(toolPaths(ListNotificationsArgsDto, { status: 'new', autoMarkRead: 'yes', projectUuid: 'p' })).toEqual(['status', 'projectUuid', 'autoMarkRead']);
    expect(toolPaths(ListNotificationsArgsDto, { status: 'all', autoMarkRead: false, pageSize: 5 })).toEqual([]);
  });

  it('svc_mark_notification_read: uuids and a boolean (which one is required is the service rule)', () => {
    expect(toolPaths(MarkNotificationReadArgsDto, { all: 1, projectUuid: 'x' })).toEqual(['all', 'projectUuid']);
    expect(toolPaths(MarkNotificationReadArgsDto, {})).toEqual([]);
  });
});
