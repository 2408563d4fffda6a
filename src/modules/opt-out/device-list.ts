// The suppression list as phones get it with their settings, so that a phone can refuse an
// end-to-end encrypted SMS to a listed number: the gateway cannot read such a recipient, the phone
// can (docs/encryption.md, "Opted-out recipients").
//
// Phones get keyed hashes, never the numbers: HMAC-SHA-256 of each number in E.164 under a key of
// 32 random bytes, cut to its first 8 bytes. The key travels with the hashes (a phone needs it to
// hash the recipient it decrypted), so this keeps the numbers out of plain view of what stores or
// relays settings (the broker's retained messages, Redis, an operator watching MQTT), not out of
// reach of someone who holds the message: phone numbers are few enough to try them all. A key is
// drawn whenever an account's list is computed, so hashes say nothing across accounts or over
// time. Eight bytes keep a list of 20,000 numbers at 213 KB of base64; a number not listed matches
// by chance with odds of count / 2^64.
//
// Computed when settings are pushed (a phone connecting, settings or the list changing), never on
// the way of an SMS; kept per account until the list changes, so that phones reconnecting
// together cost one query.
import { createHmac, randomBytes } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { newestSuppressedPhones } from './repository.ts';
import type { OptedOutForDevices } from './types.ts';

/** The most numbers phones are given; past it, the newest (docs/encryption.md says why). */
export const DEVICE_LIST_LIMIT = 20_000;
export const HASH_BYTES = 8;
/** Accounts whose list is kept computed; the least recently used goes first. */
const CACHED_ACCOUNTS = 500;
/** A list computed while it changed is computed again, this many times at most. */
const ATTEMPTS = 5;

type Computed = OptedOutForDevices | undefined;

export class OptedOutLists {
  private readonly cache = new Map<string, Promise<Computed>>();

  constructor(
    private readonly db: Executor,
    private readonly logger: Logger,
    private readonly limit = DEVICE_LIST_LIMIT,
  ) {}

  /** The account's list as phones get it; undefined while it is empty (the settings then carry none). */
  async of(accountId: string): Promise<Computed> {
    let list: Computed;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let entry = this.cache.get(accountId);
      if (entry) this.cache.delete(accountId);
      entry ??= this.compute(accountId);
      this.remember(accountId, entry);
      try {
        list = await entry;
      } catch (error) {
        if (this.cache.get(accountId) === entry) this.cache.delete(accountId);
        throw error;
      }
      // Still the newest: no change was heard while it was computed (else it may predate it).
      if (this.cache.get(accountId) === entry) return list;
    }
    return list;
  }

  /** The account's list changed (here or on another node): computed afresh when next asked. */
  changed(accountId: string): void {
    this.cache.delete(accountId);
  }

  /** Changes may have been missed (another node's, while Redis was away): every list is computed afresh. */
  reset(): void {
    this.cache.clear();
  }

  private remember(accountId: string, entry: Promise<Computed>): void {
    this.cache.set(accountId, entry);
    if (this.cache.size > CACHED_ACCOUNTS) this.cache.delete(this.cache.keys().next().value!);
  }

  private async compute(accountId: string): Promise<Computed> {
    const phones = await newestSuppressedPhones(this.db, accountId, this.limit + 1);
    if (phones.length === 0) return undefined;
    const complete = phones.length <= this.limit;
    if (!complete) {
      this.logger.warn({ accountId, limit: this.limit }, 'the suppression list is longer than phones are given: they check encrypted SMS against its newest numbers only');
    }
    const kept = complete ? phones : phones.slice(0, this.limit);
    const key = randomBytes(32);
    const packed = Buffer.alloc(kept.length * HASH_BYTES);
    for (const [index, phone] of kept.entries()) {
      // About 10 µs a hash: a long list lets other work run every thousand.
      if (index > 0 && index % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
      hashPhone(key, phone).copy(packed, index * HASH_BYTES);
    }
    return { scheme: 'hmac-sha256/64', key: key.toString('base64'), hashes: sortHashes(packed).toString('base64'), count: kept.length, complete };
  }
}

/** Sorted, so that the order says nothing of when each number was listed. */
function sortHashes(packed: Buffer): Buffer {
  const values = new BigUint64Array(packed.length / HASH_BYTES);
  for (let index = 0; index < values.length; index++) values[index] = packed.readBigUInt64BE(index * HASH_BYTES);
  values.sort();
  for (let index = 0; index < values.length; index++) packed.writeBigUInt64BE(values[index]!, index * HASH_BYTES);
  return packed;
}

/** A number's hash as phones compute it: the first 8 bytes of HMAC-SHA-256(key, E.164 in UTF-8). */
export function hashPhone(key: Buffer, phone: string): Buffer {
  return createHmac('sha256', key).update(phone, 'utf8').digest().subarray(0, HASH_BYTES);
}
