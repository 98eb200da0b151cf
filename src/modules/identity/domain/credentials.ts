import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Password hashing, session tokens and agent keys (docs/platform.md §2). Only hashes are ever stored. */

/** scrypt's cost parameters for new hashes. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keylen: number;
}

/** The parameters of every hash the service writes. */
export const SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1, keylen: 64 };

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { ...opts, maxmem: 256 * opts.N! * opts.r! }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: parameters travel with the hash so they can change later. */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, params.keylen, { N: params.N, r: params.r, p: params.p });
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The parameters of a stored hash, or null when it is not one this code would have written (never "accept"). */
function parseStored(stored: string): { N: number; r: number; p: number; salt: Buffer; hash: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [, n, r, p, saltB64, hashB64] = parts;
  if (![n, r, p].every((v) => /^[1-9]\d{0,7}$/.test(v)) || !BASE64.test(saltB64) || !BASE64.test(hashB64)) return null;
  const N = Number(n);
  // N a power of two within what verification can afford; r and p small: a corrupt row must not stall the login.
  if (N < 1024 || N > 1 << 20 || (N & (N - 1)) !== 0 || Number(r) > 32 || Number(p) > 16) return null;
  const salt = Buffer.from(saltB64, 'base64');
  const hash = Buffer.from(hashB64, 'base64');
  // A short or empty hash would make any password "match" a key of the same (zero) length.
  if (salt.length < 16 || hash.length < 32) return null;
  return { N, r: Number(r), p: Number(p), salt, hash };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.hash.length, { N: parsed.N, r: parsed.r, p: parsed.p });
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** A hash of a password nobody knows, verified against for unknown emails so timing does not reveal them. */
let dummyHash: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export const API_KEY_PREFIX = 'agk_';

/** `agk_` + base64url(32 random bytes) = 47 characters. */
export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: sha256Hex(key), prefix: key.slice(0, 12) };
}

export function looksLikeApiKey(token: string): boolean {
  return /^agk_[A-Za-z0-9_-]{43}$/.test(token);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
