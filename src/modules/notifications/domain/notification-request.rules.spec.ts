import { AppError } from '../../../shared/errors/app-error.js';
import {
  etagMatches,
  parseAgentListInput,
  parseListQuery,
  parseMarkReadInput,
  parsePreferencesPatch,
  parseReadAllBody,
  formatCursor,
  parseAgentDelta,
  parseCursor,
  parseInboxQuery,
  parseSnoozeUntil,
  parseWaitSeconds,
} from './notification-request.rules.js';

const P = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';

function refusal(fn: () => unknown): { code: string; message: string; details?: unknown } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message, ...(err.extra as object) };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseListQuery (notifications.md §2.1)', () => {
  it('defaults to limit 50, offset 0, no filters', () => {
    expect(parseListQuery({})).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null, cursor: null });
    expect(parseListQuery(undefined)).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null, cursor: null });
  });

  it.each([
    ['0', 1],
    ['-7', 1],
    ['1', 1],
    ['100', 100],
    ['1000', 100],
    ['99999999999999999999999', 100],
    ['abc', 50],
    ['', 50],
    ['5.5', 50],
    [' 5', 50],
    ['+5', 50],
  ])('limit %p → %p', (raw, want) => {
    expect(parseListQuery({ limit: raw }).limit).toBe(want);
  });

  it.each([
    ['-5', 0],
    ['0', 0],
    ['30', 30],
    ['x', 0],
    ['2.5', 0],
    ['99999999999999999999999', Number.MAX_SAFE_INTEGER],
  ])('offset %p → %p', (raw, want) => {
    expect(parseListQuery({ offset: raw }).offset).toBe(want);
  });

  it('treats repeated parameters (arrays) as invalid values, i.e. defaults', () => {
    expect(parseListQuery({ limit: ['5', '6'], offset: ['1'] })).toMatchObject({ limit: 50, offset: 0 });
  });

  it.each([
    ['true', true],
    ['TRUE', false],
    ['1', false],
    ['false', false],
    ['', false],
  ])('unreadOnly %p → %p', (raw, want) => {
    expect(parseListQuery({ unreadOnly: raw }).unreadOnly).toBe(want);
  });

  it('accepts a canonical projectUuid (lower-cased) and refuses anything else with one detail', () => {
    expect(parseListQuery({ projectUuid: P.toUpperCase() }).projectUuid).toBe(P);
    for (const bad of ['nope', '', `${P}x`, [P]]) {
      expect(refusal(() => parseListQuery({ projectUuid: bad }))).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid input',
        details: [{ field: 'projectUuid', message: 'must be a uuid' }],
      });
    }
  });

  it('ignores other parameters', () => {
    expect(parseListQuery({ foo: 'bar', recipientUuid: P })).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null, cursor: null });
  });
});

describe('parseReadAllBody', () => {
  it('no body means no filter; other fields are ignored', () => {
    expect(parseReadAllBody(undefined)).toEqual({ projectUuid: null, upTo: null });
    expect(parseReadAllBody({})).toEqual({ projectUuid: null, upTo: null });
    expect(parseReadAllBody({ foo: 1, projectUuid: P })).toEqual({ projectUuid: P, upTo: null });
  });

  it('refuses a non-object body and a non-uuid projectUuid', () => {
    for (const bad of [null, [], 'x', 3, true]) expect(refusal(() => parseReadAllBody(bad)).code).toBe('VALIDATION_ERROR');
    expect(refusal(() => parseReadAllBody({ projectUuid: 'x' })).details).toEqual([{ field: 'projectUuid', message: 'must be a uuid' }]);
    expect(refusal(() => parseReadAllBody({ projectUuid: null })).code).toBe('VALIDATION_ERROR');
  });
});

describe('parsePreferencesPatch', () => {
  it('keeps the given booleans; {} is an empty patch', () => {
    expect(parsePreferencesPatch({})).toEqual({});
    expect(parsePreferencesPatch({ mentioned: false, taskAssigned: true })).toEqual({ mentioned: false, taskAssigned: true });
  });

  it('lists every violation, one entry each', () => {
    expect(refusal(() => parsePreferencesPatch({ mentioned: 'no', bogus: true, taskVerified: 1, ownerUuid: P }))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Invalid input',
      details: [
        { field: 'mentioned', message: 'must be a boolean' },
        { field: 'bogus', message: 'Unknown field' },
        { field: 'taskVerified', message: 'must be a boolean' },
        { field: 'ownerUuid', message: 'Unknown field' },
      ],
    });
  });

  it('refuses a body that is not an object', () => {
    for (const bad of [undefined, null, [], 'x', false]) expect(refusal(() => parsePreferencesPatch(bad)).code).toBe('VALIDATION_ERROR');
  });
});

describe('agent inputs', () => {
  it('svc_get_notifications defaults: unread, autoMarkRead, no project', () => {
    expect(parseAgentListInput({})).toEqual({ status: 'unread', autoMarkRead: true, projectUuid: null, cursor: null });
    expect(parseAgentListInput({ status: 'all', autoMarkRead: false, projectUuid: P })).toEqual({ status: 'all', autoMarkRead: false, projectUuid: P, cursor: null });
  });

  it('svc_mark_notification_read needs exactly one of notificationUuid or all=true', () => {
    const msg = 'notificationUuid or all=true required';
    expect(refusal(() => parseMarkReadInput({})).message).toBe(msg);
    expect(refusal(() => parseMarkReadInput({ all: false })).message).toBe(msg);
    expect(refusal(() => parseMarkReadInput({ notificationUuid: P, all: true })).message).toBe(msg);
    expect(parseMarkReadInput({ notificationUuid: P })).toEqual({ notificationUuid: P });
    expect(parseMarkReadInput({ all: true })).toEqual({ all: true, projectUuid: null, upTo: null });
    expect(parseMarkReadInput({ all: true, projectUuid: P })).toEqual({ all: true, projectUuid: P, upTo: null });
  });
});

describe('etagMatches', () => {
  it('compares weakly, accepts lists and *', () => {
    expect(etagMatches('"a"', '"a"')).toBe(true);
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches('"b", "a"', '"a"')).toBe(true);
    expect(etagMatches('*', '"a"')).toBe(true);
    expect(etagMatches('"b"', '"a"')).toBe(false);
    expect(etagMatches(undefined, '"a"')).toBe(false);
    expect(etagMatches('', '"a"')).toBe(false);
  });
});

describe('inbox additions (§2.0)', () => {
  const fieldOf = (fn: () => unknown): unknown => (refusal(fn).details as Array<{ field: string }>)[0].field;

  it('a query with after is a delta (list filters ignored); without it a page', () => {
    expect(parseInboxQuery({ after: 'ab12-7', waitSeconds: '30', unreadOnly: 'true', offset: '3' })).toEqual({ delta: { after: { epoch: 'ab12', n: 7 }, waitSeconds: 30 } });
    expect(parseInboxQuery({ after: 'ab12-0' })).toEqual({ delta: { after: { epoch: 'ab12', n: 0 }, waitSeconds: null } });
    expect(parseInboxQuery({ limit: '5', cursor: '' })).toEqual({ list: { limit: 5, offset: 0, unreadOnly: false, projectUuid: null, cursor: 'top' } });
    for (const after of ['', 'x', 'ab12-', 'ab12-01', '-5', 'ab12-1.5', 'AB-1']) expect([after, fieldOf(() => parseInboxQuery({ after }))]).toEqual([after, 'after']);
  });

  it('waitSeconds is an integer from 1 to 30 and only comes with after', () => {
    expect(parseWaitSeconds('1', true)).toBe(1);
    expect(parseWaitSeconds(30, true)).toBe(30);
    expect(parseWaitSeconds(undefined, false)).toBeNull();
    for (const v of ['0', '31', 'abc', '', '2.5', '-1', 0, 31, 2.5]) expect([v, fieldOf(() => parseWaitSeconds(v, true))]).toEqual([v, 'waitSeconds']);
    expect(refusal(() => parseWaitSeconds('5', false)).details).toEqual([{ field: 'waitSeconds', message: 'requires after' }]);
    expect(fieldOf(() => parseAgentDelta({ waitSeconds: 5 }))).toBe('waitSeconds');
    expect(parseAgentDelta({ after: 'e1-3', waitSeconds: 5, status: 'read' })).toEqual({ after: { epoch: 'e1', n: 3 }, waitSeconds: 5 });
  });

  it('cursors round-trip and anything else is refused on cursor', () => {
    const c = formatCursor('1795665600123457', P);
    expect(parseCursor(c)).toEqual({ micros: '1795665600123457', uuid: P });
    expect(parseCursor('')).toBe('top');
    for (const bad of ['x', formatCursor('12', 'not-a-uuid'), Buffer.from(`-1:${P}`).toString('base64url'), 'a'.repeat(200), 5]) {
      expect(fieldOf(() => parseCursor(bad))).toBe('cursor');
    }
  });

  it('a snooze ends 3 minutes to a year ahead, as an ISO time with a zone', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseSnoozeUntil('2026-01-01T00:03:00Z', now).toISOString()).toBe('2026-01-01T00:03:00.000Z');
    expect(parseSnoozeUntil('2026-01-01T02:00:00+01:00', now).toISOString()).toBe('2026-01-01T01:00:00.000Z');
    for (const bad of ['2026-01-01T00:02:59.999Z', '2026-01-01T00:10:00', 'tomorrow', '2028-01-01T00:00:00Z', 12, null]) {
      expect([bad, fieldOf(() => parseSnoozeUntil(bad, now))]).toEqual([bad, 'until']);
    }
  });

  it('read-all and the tool take upTo as a position', () => {
    expect(parseReadAllBody({ upTo: 'e1-9' })).toEqual({ projectUuid: null, upTo: { epoch: 'e1', n: 9 } });
    expect(parseMarkReadInput({ all: true, upTo: 'e1-9' })).toEqual({ all: true, projectUuid: null, upTo: { epoch: 'e1', n: 9 } });
    expect(fieldOf(() => parseReadAllBody({ upTo: 9 }))).toBe('upTo');
  });
});
