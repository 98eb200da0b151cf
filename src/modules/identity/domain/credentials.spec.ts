import { hashPassword, looksLikeApiKey, newApiKey, newSessionToken, sha256Hex, verifyPassword } from './credentials.js';

describe('credentials', () => {
  it('hashes passwords with scrypt and verifies them', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hash).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', hash)).resolves.toBe(true);
    await expect(verifyPassword('wrong horse', hash)).resolves.toBe(false);
    await expect(verifyPassword('x', 'garbage')).resolves.toBe(false);
  });

  it('refuses, never accepts, a stored hash it would not have written', async () => {
    const good = await hashPassword('correct horse');
    const [, n, r, p, salt, hash] = good.split('$');
    const stored = (parts: Partial<Record<'n' | 'r' | 'p' | 'salt' | 'hash', string>>) =>
      ['scrypt', parts.n ?? n, parts.r ?? r, parts.p ?? p, parts.salt ?? salt, parts.hash ?? hash].join('$');
    // An empty or short hash part: scrypt would produce an equally short key and any password would "match".
    for (const bad of [stored({ hash: '' }), stored({ hash: 'AAAA' }), stored({ salt: '' }), stored({ hash: '!!!!' })]) {
      await expect(verifyPassword('anything at all', bad)).resolves.toBe(false);
      await expect(verifyPassword('correct horse', bad)).resolves.toBe(false);
    }
    // Parameters scrypt rejects (NaN, not a power of two) or that would stall a login: false, not an exception.
    for (const bad of [stored({ n: 'x' }), stored({ n: '1000' }), stored({ n: String(1 << 24) }), stored({ r: '0' }), stored({ p: '-1' }), stored({ r: '999' })]) {
      await expect(verifyPassword('correct horse', bad)).resolves.toBe(false);
    }
    await expect(verifyPassword('correct horse', stored({}))).resolves.toBe(true);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same')).not.toEqual(await hashPassword('same'));
  });

  it('makes 47-character agk_ keys with a 12-character prefix and a sha256 hash', () => {
    const { key, hash, prefix } = newApiKey();
    expect(key).toHaveLength(47);
    expect(looksLikeApiKey(key)).toBe(true);
    expect(prefix).toBe(key.slice(0, 12));
    expect(hash).toBe(sha256Hex(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(looksLikeApiKey('agk_short')).toBe(false);
  });

  it('makes 43-character session tokens', () => {
    expect(newSessionToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
