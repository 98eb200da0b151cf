import { AppError } from '../../../shared/errors/app-error.js';
import {
  etagMatches,
  parseAgentListInput,
  parseListQuery,
  parseMarkReadInput,
  parsePreferencesPatch,
  parseReadAllBody,
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
    expect(parseListQuery({})).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null });
    expect(parseListQuery(undefined)).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null });
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
    expect(parseListQuery({ foo: 'bar', recipientUuid: P })).toEqual({ limit: 50, offset: 0, unreadOnly: false, projectUuid: null });
  });
});

describe('parseReadAllBody', () => {
  it('no body means no filter; other fields are ignored', () => {
    expect(parseReadAllBody(undefined)).toEqual({ projectUuid: null });
    expect(parseReadAllBody({})).toEqual({ projectUuid: null });
    expect(parseReadAllBody({ foo: 1, projectUuid: P })).toEqual({ projectUuid: P });
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
    expect(parseAgentListInput({})).toEqual({ status: 'unread', autoMarkRead: true, projectUuid: null });
    expect(parseAgentListInput({ status: 'all', autoMarkRead: false, projectUuid: P })).toEqual({ status: 'all', autoMarkRead: false, projectUuid: P });
  });

  it('svc_mark_notification_read needs exactly one of notificationUuid or all=true', () => {
    const msg = 'notificationUuid or all=true required';
    expect(refusal(() => parseMarkReadInput({})).message).toBe(msg);
    expect(refusal(() => parseMarkReadInput({ all: false })).message).toBe(msg);
    expect(refusal(() => parseMarkReadInput({ notificationUuid: P, all: true })).message).toBe(msg);
    expect(parseMarkReadInput({ notificationUuid: P })).toEqual({ notificationUuid: P });
    expect(parseMarkReadInput({ all: true })).toEqual({ all: true, projectUuid: null });
    expect(parseMarkReadInput({ all: true, projectUuid: P })).toEqual({ all: true, projectUuid: P });
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
