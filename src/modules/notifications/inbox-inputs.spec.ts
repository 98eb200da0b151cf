import { cursorOf, formatCursor, isoTimeOf, positionOf, waitSecondsOf } from './inbox-inputs.js';

const P = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';

describe('inbox input forms', () => {
  it('positions: <epoch>-<n>, nothing else', () => {
    expect(positionOf('ab12-7')).toEqual({ epoch: 'ab12', n: 7 });
    for (const bad of ['', 'x', 'ab12-', 'ab12-01', 'AB-1', 7, null, ['ab12-1']]) expect(positionOf(bad)).toBeNull();
  });

  it('cursors round-trip; empty is the top; anything else is null', () => {
    expect(cursorOf(formatCursor('1795665600123457', P))).toEqual({ micros: '1795665600123457', uuid: P });
    expect(cursorOf('')).toBe('top');
    for (const bad of ['x', 'top', formatCursor('12', 'not-a-uuid'), Buffer.from(`-1:${P}`).toString('base64url'), 'a'.repeat(200), 5]) expect(cursorOf(bad)).toBeNull();
  });

  it('waits: 1 to 30 seconds, as a number or its digits', () => {
    expect(waitSecondsOf('1')).toBe(1);
    expect(waitSecondsOf(30)).toBe(30);
    for (const bad of ['0', '31', 'abc', '', '2.5', '-1', 0, 31, 2.5, undefined]) expect(waitSecondsOf(bad)).toBeNull();
  });

  it('snooze times: ISO 8601 with a time zone', () => {
    expect(isoTimeOf('2026-01-01T02:00:00+01:00')?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(isoTimeOf('2026-01-01T00:03Z')?.toISOString()).toBe('2026-01-01T00:03:00.000Z');
    for (const bad of ['2026-01-01T00:10:00', 'tomorrow', '2026-13-01T00:00:00Z', 12, null]) expect(isoTimeOf(bad)).toBeNull();
  });
});
