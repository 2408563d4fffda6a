// The account's opted-out numbers, as the gateway pushes them with the settings (`opted_out`,
// docs/asyncapi.yaml): keyed hashes, never the numbers. The gateway cannot read the recipient of an
// end-to-end encrypted SMS, so it cannot refuse one to a number that sent STOP; the phone can,
// once it has decrypted it, and does: such a task fails with recipient_opted_out, unsent.
//
// A hash is the first 8 bytes of HMAC-SHA-256 of the number in E.164 (UTF-8) under the key that
// comes with the list. The gateway lists numbers in E.164; the phone hashes the recipient it
// decrypted in the same form: 00 in front becomes +, and + is added to a number without it. A
// number written the national way (without its country code) cannot be told to be listed.
import { createHmac } from 'node:crypto';

export const OPTED_OUT_SCHEME = 'hmac-sha256/64';
const HASH_BYTES = 8;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class OptedOutNumbers {
  private readonly hashes = new Set<string>();

  constructor(
    private readonly key: Buffer,
    hashes: Buffer,
    /** false: the gateway gave the newest numbers of a list longer than phones are given. */
    readonly complete: boolean,
  ) {
    for (let at = 0; at < hashes.length; at += HASH_BYTES) this.hashes.add(hashes.subarray(at, at + HASH_BYTES).toString('hex'));
  }

  get size(): number {
    return this.hashes.size;
  }

  /** Whether the recipient (digits, with or without + or 00 in front) is on the list. */
  has(recipient: string): boolean {
    const e164 = internationalForm(recipient);
    return e164 !== undefined && this.hashes.has(createHmac('sha256', this.key).update(e164, 'utf8').digest().subarray(0, HASH_BYTES).toString('hex'));
  }
}

/** +digits from digits with +, 00 or nothing in front; undefined for anything else. */
export function internationalForm(recipient: string): string | undefined {
  const match = /^(\+|00)?([0-9]{1,20})$/.exec(recipient.trim());
  return match ? `+${match[2]}` : undefined;
}

/**
 * The settings' `opted_out`: the list; undefined when absent (the account lists no number, or the
 * gateway is older than it) or in a scheme this agent does not know (a later gateway's: nothing
 * can be checked, and the rest of the settings still apply); a string says why it is malformed.
 */
export function parseOptedOut(value: unknown): OptedOutNumbers | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return 'opted_out is not an object';
  const { scheme, key, hashes, count, complete } = value as Record<string, unknown>;
  if (scheme !== OPTED_OUT_SCHEME) return undefined;
  if (typeof key !== 'string' || !BASE64.test(key) || Buffer.from(key, 'base64').length < 16) return 'opted_out.key is not a base64 key of 16 bytes or more';
  if (typeof hashes !== 'string' || !BASE64.test(hashes)) return 'opted_out.hashes is not base64';
  const bytes = Buffer.from(hashes, 'base64');
  if (bytes.length % HASH_BYTES !== 0) return `opted_out.hashes is not a whole number of ${HASH_BYTES}-byte hashes`;
  if (count !== bytes.length / HASH_BYTES) return 'opted_out.count does not match its hashes';
  if (typeof complete !== 'boolean') return 'opted_out.complete is not a boolean';
  return new OptedOutNumbers(Buffer.from(key, 'base64'), bytes, complete);
}
