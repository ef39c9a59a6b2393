import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * Hashing of secrets.
 * - Partner client secrets and gateway passwords: scrypt (memory-hard), compared in constant time.
 * - Access tokens and API keys: 256-bit random values, stored as SHA-256. They are looked up by
 *   hash on every call, and a preimage search over 2^256 values is out of reach, so a slow hash
 *   would add cost without adding safety (see docs/decisions.md).
 */

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** For generated 256-bit client secrets: cheap enough for sessions, memory-hard anyway. */
export const SECRET_PARAMS: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };
/** For human-chosen passwords (gateway users): OWASP's scrypt recommendation. */
export const PASSWORD_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

const KEY_LENGTH = 32;

function scrypt(secret: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(secret, salt, KEY_LENGTH, { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export async function hashSecret(secret: string, params: ScryptParams = SECRET_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A well-formed hash of a random secret, checked against when the account does not exist. */
let decoyHash: Promise<string> | undefined;

/**
 * Constant-time verification. With `stored` undefined (unknown account) the same work is done
 * against a decoy, so timing does not tell an unknown account from a wrong secret.
 */
export async function verifySecret(secret: string, stored: string | undefined): Promise<boolean> {
  const target = stored ?? (await (decoyHash ??= hashSecret(randomBytes(32).toString('base64url'))));
  const parts = target.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected) && stored !== undefined;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Constant-time comparison of two SHA-256 digests in base64url. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'base64url');
  const y = Buffer.from(b, 'base64url');
  return x.length === y.length && timingSafeEqual(x, y);
}
