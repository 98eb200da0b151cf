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
