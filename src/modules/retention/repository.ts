import type { Executor } from '../../storage/database.ts';
import type { RetentionSettings } from './types.ts';

export type { RetentionSettings };

interface RetentionRow extends RetentionSettings {
  recipient_salt: string;
}

export async function findRetention(db: Executor, accountId: string): Promise<RetentionRow | undefined> {
  const row = await db<RetentionRow>('account_retention').where({ account_id: accountId }).first();
  return row ? { ...row, keep_text_days: row.keep_text_days === null ? null : Number(row.keep_text_days) } : undefined;
}

/** Writes the setting; the salt is made once, with the first setting, and never changes. */
export async function saveRetention(
  db: Executor,
  accountId: string,
  setting: { keep_text_days: number | null; hash_recipients: boolean },
  newSalt: string,
  at: Date,
): Promise<void> {
  await db.raw(
    `insert into account_retention (account_id, keep_text_days, hash_recipients, recipient_salt, updated_at)
     values (?, ?, ?, ?, ?)
     on conflict (account_id) do update set keep_text_days = excluded.keep_text_days,
       hash_recipients = excluded.hash_recipients, updated_at = excluded.updated_at`,
    [accountId, setting.keep_text_days, setting.hash_recipients, newSalt, at],
  );
}

/** The accounts that keep text a limited time, a page at a time by id (the sweep). */
export async function accountsWithLimit(db: Executor, after: string | undefined, limit: number): Promise<RetentionRow[]> {
  const query = db<RetentionRow>('account_retention').whereNotNull('keep_text_days').orderBy('account_id').limit(limit);
  if (after) query.where('account_id', '>', after);
  return (await query).map((row) => ({ ...row, keep_text_days: Number(row.keep_text_days) }));
}
