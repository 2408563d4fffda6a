// End-to-end encryption of an SMS's text and recipient between the client and the phone: the
// gateway stores and forwards ciphertext it cannot read. One text format, so that any client
// (SDK, curl with a Node one-liner, this agent, the simulator) and any phone agree:
//
//   $aes-256-gcm/pbkdf2-sha256$i=<iterations>$<salt>$<iv>$<ciphertext and tag>
//
// AES-256-GCM with a key derived from the passphrase by PBKDF2-HMAC-SHA256 (32 bytes), a random
// 16-byte salt and a random 12-byte IV for every value encrypted, the 16-byte tag appended to the
// ciphertext; salt, IV and ciphertext in standard base64 with padding. docs/encryption.md has a
// test vector. Node's crypto only: the agent runs on Termux and a modem host, with no native
// dependency. The one implementation: the gateway (src/common/end-to-end.ts) and the TypeScript
// SDK (compiled into its package) import this file, so it imports nothing but Node.
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';

export const E2E_SCHEME = 'aes-256-gcm/pbkdf2-sha256';
/** What encrypt uses unless told otherwise: about 0.1 s on a phone, once per value. */
export const DEFAULT_ITERATIONS = 100_000;
/**
 * Iterations a payload may name. Below, a passphrase is too cheap to guess; above, a phone would
 * spend seconds per SMS deriving the key, which a hostile client could use to stall it.
 */
export const MIN_ITERATIONS = 10_000;
export const MAX_ITERATIONS = 1_000_000;
export const SALT_BYTES = 16;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

const BASE64 = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?';
const FORMAT = new RegExp(`^\\$aes-256-gcm/pbkdf2-sha256\\$i=([1-9][0-9]{0,6})\\$(${BASE64})\\$(${BASE64})\\$(${BASE64})$`);

export interface EncryptedParts {
  iterations: number;
  salt: Buffer;
  iv: Buffer;
  /** The ciphertext followed by the 16-byte GCM tag. */
  sealed: Buffer;
}

/** The parts of a payload in the format, or why it is not one (in words a client can act on). */
export function parseEncrypted(payload: string): EncryptedParts | string {
  const match = FORMAT.exec(payload);
  if (!match) return `is not in the format $${E2E_SCHEME}$i=<iterations>$<salt base64>$<iv base64>$<ciphertext base64>`;
  const iterations = Number(match[1]);
  if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) return `names ${iterations} iterations; ${MIN_ITERATIONS}-${MAX_ITERATIONS} are accepted`;
  const salt = Buffer.from(match[2]!, 'base64');
  const iv = Buffer.from(match[3]!, 'base64');
  const sealed = Buffer.from(match[4]!, 'base64');
  if (salt.length !== SALT_BYTES) return `has a salt of ${salt.length} bytes; it must be ${SALT_BYTES}`;
  if (iv.length !== IV_BYTES) return `has an IV of ${iv.length} bytes; it must be ${IV_BYTES}`;
  if (sealed.length <= TAG_BYTES) return `has no ciphertext after its ${TAG_BYTES}-byte tag`;
  return { iterations, salt, iv, sealed };
}

/** Whether a value is in the format (it says nothing of whether any passphrase opens it). */
export function isEncrypted(payload: string): boolean {
  return typeof parseEncrypted(payload) !== 'string';
}

export interface EncryptOptions {
  iterations?: number;
  /** Fixed salt and IV: for test vectors only. A reused IV under one key gives GCM away. */
  salt?: Buffer;
  iv?: Buffer;
}

/** Encrypts text (UTF-8) with a passphrase, in the format above. */
export async function encrypt(text: string, passphrase: string, options: EncryptOptions = {}): Promise<string> {
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
    throw new RangeError(`iterations must be an integer from ${MIN_ITERATIONS} to ${MAX_ITERATIONS}`);
  }
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  const iv = options.iv ?? randomBytes(IV_BYTES);
  if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES) throw new RangeError(`salt must be ${SALT_BYTES} bytes and iv ${IV_BYTES}`);
  const key = await deriveKey(passphrase, salt, iterations);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `$${E2E_SCHEME}$i=${iterations}$${salt.toString('base64')}$${iv.toString('base64')}$${sealed.toString('base64')}`;
}

/** Thrown when a payload is not in the format, or the passphrase does not open it (GCM's tag fails). */
export class DecryptionError extends Error {
  override readonly name = 'DecryptionError';
}

/** Decrypts a payload in the format with a passphrase; DecryptionError when it cannot. */
export async function decrypt(payload: string, passphrase: string): Promise<string> {
  const parts = parseEncrypted(payload);
  if (typeof parts === 'string') throw new DecryptionError(`the payload ${parts}`);
  const key = await deriveKey(passphrase, parts.salt, parts.iterations);
  const decipher = createDecipheriv('aes-256-gcm', key, parts.iv);
  decipher.setAuthTag(parts.sealed.subarray(parts.sealed.length - TAG_BYTES));
  try {
    const plain = Buffer.concat([decipher.update(parts.sealed.subarray(0, parts.sealed.length - TAG_BYTES)), decipher.final()]);
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    throw new DecryptionError('the passphrase does not open this payload (or it was altered)');
  }
}

/** The salt of every passphrase fingerprint: fixed, so that equal passphrases give equal fingerprints. */
const FINGERPRINT_SALT = Buffer.from('sms-gateway end-to-end passphrase fingerprint', 'utf8');
/** 8 bytes: equal passphrases are told apart from different ones with odds of 1 in 2^64 of a false match. */
const FINGERPRINT_BYTES = 8;
export const FINGERPRINT_PATTERN = '^[0-9a-f]{16}$';

/**
 * A short name of a passphrase that the gateway may hold (the phone reports it in its heartbeat,
 * a client may give it with an encrypted SMS) to tell which phones can open which SMS, without
 * ever holding the passphrase. It costs a guesser what one ciphertext already lets them try at
 * the default iterations, so it gives away nothing a ciphertext does not.
 * docs/encryption.md has a test vector.
 */
export async function passphraseFingerprint(passphrase: string): Promise<string> {
  const bytes = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(passphrase, FINGERPRINT_SALT, DEFAULT_ITERATIONS, FINGERPRINT_BYTES, 'sha256', (error, key) => (error ? reject(error) : resolve(key))),
  );
  return bytes.toString('hex');
}

function deriveKey(passphrase: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => pbkdf2(passphrase, salt, iterations, 32, 'sha256', (error, key) => (error ? reject(error) : resolve(key))));
}
