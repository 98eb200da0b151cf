import { containsPattern, searchSnippet } from './search-text.js';

describe('containsPattern', () => {
  it('wraps the query in % and escapes LIKE wildcards and backslashes', () => {
    expect(containsPattern('abc')).toBe('%abc%');
    expect(containsPattern('50%_off\\now')).toBe('%50\\%\\_off\\\\now%');
  });
});

describe('searchSnippet', () => {
  it('returns short texts whole with whitespace collapsed', () => {
    expect(searchSnippet('  hello \n\n world ', 'world')).toBe('hello world');
    expect(searchSnippet('', 'x')).toBe('');
    expect(searchSnippet(null, 'x')).toBe('');
  });

  it('keeps exactly 200 characters whole', () => {
    const t = 'a'.repeat(200);
    expect(searchSnippet(t, 'zzz')).toBe(t);
  });

  it('shows the start when there is no match in the text (title match)', () => {
    const out = searchSnippet('b'.repeat(300), 'zzz');
    expect(out).toBe(`${'b'.repeat(197)}...`);
  });

  it('shows the start when the match lies inside it', () => {
    const t = `intro NEEDLE ${'c'.repeat(300)}`;
    const out = searchSnippet(t, 'needle');
    expect(out.startsWith('intro NEEDLE')).toBe(true);
    expect(out.endsWith('...')).toBe(true);
    expect(out).toHaveLength(200);
  });

  it('centres a later match with ellipses at both ends', () => {
    const t = `${'x'.repeat(500)} needle ${'y'.repeat(500)}`;
    const out = searchSnippet(t, 'NeEdLe');
    expect(out).toHaveLength(200);
    expect(out.startsWith('...')).toBe(true);
    expect(out.endsWith('...')).toBe(true);
    expect(out).toContain('needle');
    expect(out.indexOf('needle')).toBeGreaterThanOrEqual(3 + 39);
  });

  it('ends without a trailing ellipsis when the match is near the end', () => {
    const t = `${'x'.repeat(500)} needle tail`;
    const out = searchSnippet(t, 'needle');
    expect(out.startsWith('...')).toBe(true);
    expect(out.endsWith('needle tail')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(200);
  });

  it('treats regex characters in the query literally', () => {
    const t = `${'x'.repeat(300)} a.b(c)* ${'y'.repeat(300)}`;
    expect(searchSnippet(t, 'a.b(c)*')).toContain('a.b(c)*');
  });

  it('never exceeds the limit and never splits a surrogate pair', () => {
    const t = `${'😀'.repeat(400)}needle${'😀'.repeat(400)}`;
    const out = searchSnippet(t, 'needle');
    expect(Array.from(out).length).toBeLessThanOrEqual(200);
    expect(out).toContain('needle');
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
