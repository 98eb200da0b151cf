import { AppError } from '../../../shared/errors/app-error.js';
import { checkSnoozeWindow, pollAfterSeconds } from './inbox.rules.js';

describe('inbox rules (docs/notifications.md §2.0)', () => {
  it('a snooze ends 3 minutes to a year ahead', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(checkSnoozeWindow(new Date('2026-01-01T00:03:00Z'), now).toISOString()).toBe('2026-01-01T00:03:00.000Z');
    const refused = (until: string): unknown => {
      try {
        checkSnoozeWindow(new Date(until), now);
      } catch (err) {
        return err instanceof AppError ? err.extra.details : err;
      }
      return null;
    };
    expect(refused('2026-01-01T00:02:59.999Z')).toEqual([{ field: 'until', message: 'must be at least 3 minutes ahead' }]);
    expect(refused('2028-01-01T00:00:00Z')).toEqual([{ field: 'until', message: 'must be at most a year ahead' }]);
  });

  it('the poll hint: 2 s when idle, none after a wait, longer while requests queue for a connection', () => {
    expect(pollAfterSeconds(false, { waiting: 0, size: 20 })).toBe(2);
    expect(pollAfterSeconds(true, { waiting: 0, size: 20 })).toBe(0);
    expect(pollAfterSeconds(false, { waiting: 10, size: 20 })).toBe(6);
    expect(pollAfterSeconds(true, { waiting: 10, size: 20 })).toBe(4);
    expect(pollAfterSeconds(false, { waiting: 500, size: 20 })).toBe(10);
    expect(pollAfterSeconds(true, { waiting: 500, size: 20 })).toBe(8);
  });
});
