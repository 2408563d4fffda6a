// Password hashing with scrypt (node:crypto). Unlike issued keys, passwords are chosen by people
// and guessable, so each gets a random salt and a deliberately slow, memory-hard hash. The cost
// parameters are written into the stored string, so they can be raised later without breaking
// the hashes already stored. Passwords and hashes are never logged.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCHEME = 'scrypt';
/**
 * N=2^15, r=8, p=3: one of OWASP's equivalent minimum settings for scrypt. It needs 32 MiB per
 * hash rather than the 128 MiB of N=2^17, p=1, which matters with four hashes at once on
 * libuv's thread pool, and costs about the same time. PASSWORD_HASH_COST (log2 of N) changes N
 * for new hashes: higher on a strong machine, lower only where a login must be cheap (tests).
 */
export const DEFAULT_PASSWORD_HASH_COST = 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 128 * cost.N * cost.r * 2 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash` (salt and hash in base64url); N is 2^costLog2. */
export async function hashPassword(password: string, costLog2 = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const cost = { N: 2 ** costLog2, r: R, p: P };
  const key = await derive(password, salt, cost);
  return [SCHEME, cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== SCHEME) return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 1 << 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** A password for one use, shown once: 18 random bytes (24 characters, no padding). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Hashed at every failed login for an unknown email, so its timing is that of a wrong password. */
const dummyHashes = new Map<number, Promise<string>>();
export function dummyPasswordHash(costLog2 = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  let hash = dummyHashes.get(costLog2);
  if (!hash) dummyHashes.set(costLog2, (hash = hashPassword(generatePassword(), costLog2)));
  return hash;
}
