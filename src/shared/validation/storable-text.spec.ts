import { findUnstorableText, NUL_MESSAGE, SURROGATE_MESSAGE } from './storable-text.js';

describe('findUnstorableText', () => {
  it('finds U+0000 in strings and keys at any depth and names the dotted path', () => {
    expect(findUnstorableText('a\u0000')).toEqual({ path: '', message: NUL_MESSAGE });
    expect(findUnstorableText({ title: 'ok', tasks: [{ title: 'fine' }, { title: 'x\u0000' }] })).toEqual({ path: 'tasks.1.title', message: NUL_MESSAGE });
    expect(findUnstorableText({ ['k\u0000']: 1 })).toEqual({ path: 'k\u0000', message: NUL_MESSAGE });
    expect(findUnstorableText({ a: { b: ['x', { c: '\u0000' }] } })).toEqual({ path: 'a.b.1.c', message: NUL_MESSAGE });
  });

  it('finds unpaired surrogates, leading or trailing, but passes paired ones', () => {
    expect(findUnstorableText({ content: '\ud800x' })).toEqual({ path: 'content', message: SURROGATE_MESSAGE });
    expect(findUnstorableText(['ok', 'x\udfff'])).toEqual({ path: '1', message: SURROGATE_MESSAGE });
    expect(findUnstorableText('end\ud83d')).toEqual({ path: '', message: SURROGATE_MESSAGE });
    expect(findUnstorableText('😀 \ud83d\ude00')).toBeNull();
  });

  it('passes everything else, other control characters included', () => {
    for (const v of [null, 1, true, 'plain', '\u0001\u001f\uffff', { a: ['b', { c: 'd' }] }, []]) expect(findUnstorableText(v)).toBeNull();
  });

  it('reports the first offender in document order', () => {
    expect(findUnstorableText({ a: '\ud800', b: '\u0000' })).toEqual({ path: 'a', message: SURROGATE_MESSAGE });
  });
});
