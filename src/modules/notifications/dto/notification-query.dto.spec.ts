import { AppError } from '../../../shared/errors/app-error.js';
import { createValidationPipe } from '../../../shared/validation/validation.pipe.js';
import { formatCursor } from '../inbox-inputs.js';
import { ListNotificationsQuery } from './notification-query.dto.js';

const P = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const pipe = createValidationPipe();

/** The query as the route reads it (the REST pipe with the DTO), or the refusal's body. */
async function read(query: Record<string, unknown>): Promise<ListNotificationsQuery | { code: string; message: string; details: unknown }> {
  try {
    return { ...((await pipe.transform(query, { type: 'query', metatype: ListNotificationsQuery, data: '' })) as ListNotificationsQuery) };
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message, details: err.extra.details };
    throw err;
  }
}
const refusedOn = async (query: Record<string, unknown>): Promise<unknown> => ((await read(query)) as { details?: Array<{ field: string }> }).details;

describe('ListNotificationsQuery (docs/notifications.md §2.1)', () => {
  it('defaults to limit 50, offset 0, no filters; other parameters are dropped', async () => {
    expect(await read({})).toEqual({ limit: 50, offset: 0, unreadOnly: false });
    expect(await read({ foo: 'bar', recipientUuid: P })).toEqual({ limit: 50, offset: 0, unreadOnly: false });
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
    [['5', '6'], 50],
  ])('limit %p → %p (clamped, never refused)', async (raw, want) => {
    expect(await read({ limit: raw })).toMatchObject({ limit: want });
  });

  it.each([
    ['-5', 0],
    ['0', 0],
    ['30', 30],
    ['x', 0],
    ['2.5', 0],
    ['99999999999999999999999', Number.MAX_SAFE_INTEGER],
    [['1'], 0],
  ])('offset %p → %p (floored, never refused)', async (raw, want) => {
    expect(await read({ offset: raw })).toMatchObject({ offset: want });
  });

  it.each([
    ['true', true],
    ['TRUE', false],
    ['1', false],
    ['false', false],
    ['', false],
  ])('unreadOnly %p → %p', async (raw, want) => {
    expect(await read({ unreadOnly: raw })).toMatchObject({ unreadOnly: want });
  });

  it('accepts a canonical projectUuid (lower-cased) and refuses anything else with one detail', async () => {
    expect(await read({ projectUuid: P.toUpperCase() })).toMatchObject({ projectUuid: P });
    for (const bad of ['nope', '', `${P}x`, [P]]) {
      expect(await read({ projectUuid: bad })).toEqual({ code: 'VALIDATION_ERROR', message: 'Invalid input', details: [{ field: 'projectUuid', message: 'must be a uuid' }] });
    }
  });

  it('cursor: empty starts at the top; a cursor of a previous answer is read; anything else is refused', async () => {
    expect(await read({ cursor: '' })).toMatchObject({ cursor: 'top' });
    expect(await read({ cursor: formatCursor('1795665600123457', P) })).toMatchObject({ cursor: { micros: '1795665600123457', uuid: P } });
    for (const bad of ['x', formatCursor('12', 'not-a-uuid'), Buffer.from(`-1:${P}`).toString('base64url'), 'a'.repeat(200), ['', '']]) {
      expect(await refusedOn({ cursor: bad })).toEqual([{ field: 'cursor', message: 'must be a cursor from a previous answer' }]);
    }
  });

  it('after makes a delta: its position is read, the list parameters are not even checked', async () => {
    expect(await read({ after: 'ab12-7', waitSeconds: '30', unreadOnly: 'true', offset: '3', projectUuid: 'x', cursor: 'bad' })).toMatchObject({
      after: { epoch: 'ab12', n: 7 },
      waitSeconds: 30,
    });
    for (const after of ['', 'x', 'ab12-', 'ab12-01', '-5', 'ab12-1.5', 'AB-1', ['ab12-1', 'ab12-2']]) {
      expect([after, await refusedOn({ after })]).toEqual([after, [{ field: 'after', message: 'must be a stream position' }]]);
    }
  });

  it('waitSeconds is an integer from 1 to 30 and only comes with after', async () => {
    expect(await read({ after: 'e1-0', waitSeconds: '1' })).toMatchObject({ waitSeconds: 1 });
    for (const v of ['0', '31', 'abc', '', '2.5', '-1', ['5', '6']]) {
      expect([v, await refusedOn({ after: 'e1-0', waitSeconds: v })]).toEqual([v, [{ field: 'waitSeconds', message: 'must be an integer from 1 to 30' }]]);
    }
    expect(await refusedOn({ waitSeconds: '5' })).toEqual([{ field: 'waitSeconds', message: 'requires after' }]);
    expect(await refusedOn({ waitSeconds: 'x' })).toEqual([{ field: 'waitSeconds', message: 'must be an integer from 1 to 30' }]);
  });

  it('refuses one field at a time, in the order after, waitSeconds, projectUuid, cursor', async () => {
    expect(await refusedOn({ after: 'x', waitSeconds: '0' })).toEqual([{ field: 'after', message: 'must be a stream position' }]);
    expect(await refusedOn({ waitSeconds: '5', projectUuid: 'x', cursor: 'bad' })).toEqual([{ field: 'waitSeconds', message: 'requires after' }]);
    expect(await refusedOn({ projectUuid: 'x', cursor: 'bad' })).toEqual([{ field: 'projectUuid', message: 'must be a uuid' }]);
    expect(await refusedOn({ projectUuid: P, cursor: 'bad' })).toEqual([{ field: 'cursor', message: 'must be a cursor from a previous answer' }]);
  });
});
