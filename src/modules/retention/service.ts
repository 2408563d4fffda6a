// Retention and privacy: how long an account keeps message text, and whether numbers are kept
// only as salted hashes once their text is gone. The sweep that applies it spans the modules
// that hold messages (src/use-cases/retention-sweep.ts); this module holds the setting and the
// account's hash key.
import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import * as retention from './repository.ts';

/** What the sweep needs of one account: its cut-off and, when numbers are hashed, how. */
export interface AccountRetention {
  accountId: string;
  keepTextDays: number;
  hash: ((phone: string) => string) | undefined;
}

export const HASH_PREFIX = 'hmac:';

export class RetentionService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async get(accountId: string): Promise<retention.RetentionSettings> {
    const row = await retention.findRetention(this.db, accountId);
    return {
      account_id: accountId,
      keep_text_days: row?.keep_text_days ?? null,
      hash_recipients: row?.hash_recipients ?? false,
      updated_at: row?.updated_at ?? null,
    };
  }

  async update(accountId: string, setting: { keep_text_days: number | null; hash_recipients: boolean }): Promise<retention.RetentionSettings> {
    await retention.saveRetention(this.db, accountId, setting, randomBytes(32).toString('base64'), new Date(this.clock.now()));
    return this.get(accountId);
  }

  /** The accounts that keep text a limited time, a page at a time (one more than `limit` says nothing). */
  async limited(after: string | undefined, limit: number): Promise<AccountRetention[]> {
    const rows = await retention.accountsWithLimit(this.db, after, limit);
    return rows.map((row) => ({
      accountId: row.account_id,
      keepTextDays: row.keep_text_days!,
      hash: row.hash_recipients ? hasher(row.recipient_salt) : undefined,
    }));
  }
}

/** HMAC-SHA256 of the number under the account's salt: the same number always hashes alike within the account. */
export function hasher(salt: string): (phone: string) => string {
  return (phone) => (phone.startsWith(HASH_PREFIX) ? phone : HASH_PREFIX + createHmac('sha256', salt).update(phone).digest('hex'));
}
