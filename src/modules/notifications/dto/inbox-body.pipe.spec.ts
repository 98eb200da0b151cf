import { AppError } from '../../../shared/errors/app-error.js';
import { PREFERENCE_FIELDS } from '../domain/notification.rules.js';
import { InboxBodyPipe } from './inbox-body.pipe.js';
import { NotificationPreferencesBody, ReadAllNotificationsBody, SnoozeNotificationBody } from './notification-body.dto.js';

const P = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const NOT_AN_OBJECT = { code: 'VALIDATION_ERROR', message: 'Request body must be a JSON object', details: [{ field: '', message: 'must be a JSON object' }] };

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; details?: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message, ...(err.extra as object) };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('InboxBody (docs/notifications.md §2.1)', () => {
  const readAll = new InboxBodyPipe(ReadAllNotificationsBody, { optional: true, unknownFields: 'ignore' });
  const preferences = new InboxBodyPipe(NotificationPreferencesBody, { unknownFields: 'refuse' });
  const snooze = new InboxBodyPipe(SnoozeNotificationBody, { unknownFields: 'ignore' });

  it('read-all: no body means no filter; other fields are ignored; the project is lower-cased', async () => {
    expect({ ...(await readAll.transform(undefined)) }).toEqual({});
    expect({ ...(await readAll.transform({})) }).toEqual({});
    expect({ ...(await readAll.transform({ foo: 1, projectUuid: P.toUpperCase() })) }).toEqual({ projectUuid: P });
    expect({ ...(await readAll.transform({ upTo: 'e1-9' })) }).toEqual({ upTo: { epoch: 'e1', n: 9 } });
  });

  it('read-all: a body that is not an object, a non-uuid project, a non-position upTo are refused, one at a time', async () => {
    for (const bad of [null, [], 'x', 3, true]) expect(await refusal(readAll.transform(bad))).toEqual(NOT_AN_OBJECT);
    expect((await refusal(readAll.transform({ projectUuid: 'x' }))).details).toEqual([{ field: 'projectUuid', message: 'must be a uuid' }]);
    expect((await refusal(readAll.transform({ projectUuid: null }))).details).toEqual([{ field: 'projectUuid', message: 'must be a uuid' }]);
    expect((await refusal(readAll.transform({ upTo: 9 }))).details).toEqual([{ field: 'upTo', message: 'must be a stream position' }]);
    expect((await refusal(readAll.transform({ upTo: 'x', projectUuid: 'x' }))).details).toEqual([{ field: 'projectUuid', message: 'must be a uuid' }]);
  });

  it('text PostgreSQL cannot store is refused first, in ignored fields too', async () => {
    expect((await refusal(readAll.transform({ whatever: 'a\u0000' }))).details).toEqual([{ field: 'whatever', message: 'must not contain NUL (U+0000) characters' }]);
    expect((await refusal(readAll.transform('\u0000'))).details).toEqual([{ field: '', message: 'must not contain NUL (U+0000) characters' }]);
  });

  it('preferences: keeps the given booleans; {} is an empty patch', async () => {
    expect({ ...(await preferences.transform({})) }).toEqual({});
    expect({ ...(await preferences.transform({ mentioned: false, taskAssigned: true })) }).toEqual({ mentioned: false, taskAssigned: true });
  });

  it('preferences: every violation is one entry, in the body’s key order', async () => {
    expect(await refusal(preferences.transform({ mentioned: 'no', bogus: true, taskVerified: 1, ownerUuid: P, ideaClaimed: null }))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Invalid input',
      details: [
        { field: 'mentioned', message: 'must be a boolean' },
        { field: 'bogus', message: 'Unknown field' },
        { field: 'taskVerified', message: 'must be a boolean' },
        { field: 'ownerUuid', message: 'Unknown field' },
        { field: 'ideaClaimed', message: 'must be a boolean' },
      ],
    });
    expect((await refusal(preferences.transform(JSON.parse('{"__proto__": true}')))).details).toEqual([{ field: '__proto__', message: 'Unknown field' }]);
  });

  it('preferences and snooze: the body is required', async () => {
    for (const bad of [undefined, null, [], 'x', false]) {
      expect(await refusal(preferences.transform(bad))).toEqual(NOT_AN_OBJECT);
      expect(await refusal(snooze.transform(bad))).toEqual(NOT_AN_OBJECT);
    }
  });

  it('snooze: until is an ISO time with a zone (other fields ignored)', async () => {
    expect((await snooze.transform({ until: '2026-01-01T02:00:00+01:00', other: 1 })).until.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    for (const bad of [{}, { until: 'tomorrow' }, { until: '2026-01-01T00:10:00' }, { until: 12 }, { until: null }]) {
      expect((await refusal(snooze.transform(bad))).details).toEqual([{ field: 'until', message: 'must be an ISO 8601 time with a time zone' }]);
    }
  });

  it('preferences: the body DTO declares exactly the twelve flags', async () => {
    const all = Object.fromEntries(PREFERENCE_FIELDS.map((f) => [f, false]));
    expect({ ...(await preferences.transform(all)) }).toEqual(all);
  });
});
