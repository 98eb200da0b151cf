import { findNulCharacter } from './nul-characters.js';

describe('findNulCharacter', () => {
  it('finds U+0000 in strings and keys at any depth and names the dotted path', () => {
    expect(findNulCharacter('a\u0000')).toBe('');
    expect(findNulCharacter({ title: 'ok', tasks: [{ title: 'fine' }, { title: 'x\u0000' }] })).toBe('tasks.1.title');
    expect(findNulCharacter({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(findNulCharacter({ a: { b: ['x', { c: '\u0000' }] } })).toBe('a.b.1.c');
  });

  it('passes everything else, other control characters and lone surrogates included', () => {
    for (const v of [null, 1, true, 'plain', '\u0001\u001f', '\ud800', { a: ['b', { c: 'd' }] }, []]) expect(findNulCharacter(v)).toBeNull();
  });

  it('reports the first offender in document order', () => {
    expect(findNulCharacter({ a: '\u0000', b: '\u0000' })).toBe('a');
  });
});
