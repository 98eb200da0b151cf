import { MAX_MENTIONS_PER_TEXT, newMentions, parseMentions, snippet } from './mentions.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const uuidN = (n: number): string => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

describe('parseMentions', () => {
  it('finds user and agent mentions in text order', () => {
    const text = `Hi @[Bob](agent:${A1}) and @[Alice Smith](user:${U1}), see above`;
    expect(parseMentions(text)).toEqual([
      { type: 'agent', uuid: A1 },
      { type: 'user', uuid: U1 },
    ]);
  });

  it('returns nothing for empty, null and mention-free texts', () => {
    expect(parseMentions('')).toEqual([]);
    expect(parseMentions(null)).toEqual([]);
    expect(parseMentions(undefined)).toEqual([]);
    expect(parseMentions('mail me at bob@example.com or @bob')).toEqual([]);
  });

  it('matches the type word case-insensitively and lower-cases type and uuid', () => {
    const text = `@[X](USER:${U1.toUpperCase()}) @[Y](Agent:${A1.toUpperCase()})`;
    expect(parseMentions(text)).toEqual([
      { type: 'user', uuid: U1 },
      { type: 'agent', uuid: A1 },
    ]);
  });

  it('treats upper- and lower-case spellings of one uuid as the same target', () => {
    expect(parseMentions(`@[a](user:${U1}) @[b](user:${U1.toUpperCase()})`)).toEqual([{ type: 'user', uuid: U1 }]);
  });

  it('keeps one entry per distinct (type, uuid) pair, first occurrence wins the position', () => {
    const text = `@[a](user:${U2}) @[b](user:${U1}) @[c](user:${U2}) @[d](agent:${U2})`;
    expect(parseMentions(text)).toEqual([
      { type: 'user', uuid: U2 },
      { type: 'user', uuid: U1 },
      { type: 'agent', uuid: U2 },
    ]);
  });

  it('rejects unknown type words and non-canonical uuids', () => {
    const bad = [
      `@[a](team:${U1})`,
      `@[a](user:${U1.replace(/-/g, '')})`,
      `@[a](user:{${U1}})`,
      `@[a](user:${U1}0)`,
      `@[a](user:${U1.slice(0, -1)})`,
      `@[a](user:${U1.slice(0, -1)}g)`,
      `@[a](user: ${U1})`,
      `@[a] (user:${U1})`,
      `[a](user:${U1})`,
      `@a](user:${U1})`,
    ];
    for (const text of bad) expect(parseMentions(text)).toEqual([]);
  });

  it('does not allow "]" inside the display name', () => {
    expect(parseMentions(`@[a]b](user:${U1})`)).toEqual([]);
  });

  it('accepts display names with spaces, punctuation, unicode and an empty name', () => {
    expect(parseMentions(`@[Zoë O'Brien (PM) 🚀](user:${U1}) @[](agent:${A1})`)).toEqual([
      { type: 'user', uuid: U1 },
      { type: 'agent', uuid: A1 },
    ]);
  });

  it('finds mentions glued to surrounding text and across lines', () => {
    expect(parseMentions(`x@[a](user:${U1})y\n\n@[b\nc](agent:${A1}).`)).toEqual([
      { type: 'user', uuid: U1 },
      { type: 'agent', uuid: A1 },
    ]);
  });

  it(`stops at the ${MAX_MENTIONS_PER_TEXT}th distinct target`, () => {
    const parts: string[] = [];
    for (let i = 1; i <= 12; i++) parts.push(`@[n${i}](user:${uuidN(i)})`);
    // Repeats of earlier targets do not count towards the cap.
    parts.splice(3, 0, `@[again](user:${uuidN(1)})`);
    const found = parseMentions(parts.join(' '));
    expect(found).toHaveLength(10);
    expect(found.map((t) => t.uuid)).toEqual(Array.from({ length: 10 }, (_, i) => uuidN(i + 1)));
  });

  it('is stable across repeated calls (no shared regex state)', () => {
    const text = `@[a](user:${U1})`;
    expect(parseMentions(text)).toEqual(parseMentions(text));
    expect(parseMentions(text)).toHaveLength(1);
  });
});

describe('newMentions', () => {
  it('returns every target when there was no previous text', () => {
    expect(newMentions(null, `@[a](user:${U1}) @[b](agent:${A1})`)).toEqual([
      { type: 'user', uuid: U1 },
      { type: 'agent', uuid: A1 },
    ]);
  });

  it('returns only targets absent from the previous text', () => {
    const before = `hello @[a](user:${U1})`;
    const after = `hello @[Alice](USER:${U1.toUpperCase()}) and @[b](agent:${A1})`;
    expect(newMentions(before, after)).toEqual([{ type: 'agent', uuid: A1 }]);
  });

  it('returns nothing when the mentions are unchanged or removed', () => {
    const before = `@[a](user:${U1}) @[b](agent:${A1})`;
    expect(newMentions(before, before)).toEqual([]);
    expect(newMentions(before, `@[a](user:${U1})`)).toEqual([]);
    expect(newMentions(before, '')).toEqual([]);
  });

  it('distinguishes a user and an agent with the same uuid', () => {
    expect(newMentions(`@[a](user:${U1})`, `@[a](agent:${U1})`)).toEqual([{ type: 'agent', uuid: U1 }]);
  });

  it('compares against the whole previous text, beyond its first ten targets', () => {
    const many = Array.from({ length: 11 }, (_, i) => `@[n](user:${uuidN(i + 1)})`).join(' ');
    expect(newMentions(many, `@[n](user:${uuidN(11)})`)).toEqual([]);
  });

  it('caps the new text at ten targets before filtering', () => {
    const after = Array.from({ length: 12 }, (_, i) => `@[n](user:${uuidN(i + 1)})`).join(' ');
    expect(newMentions(`@[n](user:${uuidN(1)})`, after).map((t) => t.uuid)).toEqual(
      Array.from({ length: 9 }, (_, i) => uuidN(i + 2)),
    );
  });
});

describe('snippet', () => {
  it('replaces mentions by @Display Name', () => {
    expect(snippet(`Hey @[Alice Smith](user:${U1}), ask @[Bot](AGENT:${A1})`)).toBe('Hey @Alice Smith, ask @Bot');
  });

  it('also renders mentions beyond the tenth and invalid-looking ones stay as typed', () => {
    const many = Array.from({ length: 11 }, (_, i) => `@[n${i}](user:${uuidN(i + 1)})`).join(' ');
    expect(snippet(many)).toBe(Array.from({ length: 11 }, (_, i) => `@n${i}`).join(' '));
    expect(snippet(`@[x](team:${U1})`)).toBe(`@[x](team:${U1})`);
  });

  it('collapses whitespace runs to one space and trims the ends', () => {
    expect(snippet('  a \n\n\t b   c  ')).toBe('a b c');
    expect(snippet(`@[Multi\nLine](user:${U1})\r\nnext`)).toBe('@Multi Line next');
  });

  it('keeps texts of exactly 120 characters', () => {
    const t = 'x'.repeat(120);
    expect(snippet(t)).toBe(t);
  });

  it('cuts longer texts to 117 characters plus "..."', () => {
    const out = snippet('y'.repeat(121));
    expect(out).toBe(`${'y'.repeat(117)}...`);
    expect(out).toHaveLength(120);
  });

  it('measures the length after replacement and collapsing', () => {
    const text = `${'a '.repeat(50)}@[Bob](user:${U1})${'     '.repeat(20)}end`;
    const rendered = `${'a '.repeat(50)}@Bob end`;
    expect(rendered.length).toBeLessThanOrEqual(120);
    expect(snippet(text)).toBe(rendered);
  });

  it('never splits a surrogate pair', () => {
    const out = snippet('😀'.repeat(130));
    expect(out).toBe(`${'😀'.repeat(117)}...`);
  });

  it('returns an empty string for blank text', () => {
    expect(snippet('   ')).toBe('');
  });
});
