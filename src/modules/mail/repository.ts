// The (account, number) -> email sender table; private to the mail module.
import type { Executor } from '../../storage/database.ts';
import type { MailSenderRow } from './types.ts';

/** Remembers `sender` as the one who last wrote to `phone`; the latest wins. */
export async function rememberSender(db: Executor, accountId: string, phone: string, sender: string, now: Date): Promise<void> {
  await db('mail_senders')
    .insert({ account_id: accountId, phone, sender, updated_at: now })
    .onConflict(['account_id', 'phone'])
    .merge(['sender', 'updated_at']);
}

/** The account's senders after number `after`, by number: a page of the account export. */
export async function sendersPage(db: Executor, accountId: string, after: string | undefined, limit: number): Promise<MailSenderRow[]> {
  const query = db<MailSenderRow>('mail_senders').where({ account_id: accountId });
  if (after !== undefined) query.andWhere('phone', '>', after);
  return query.orderBy('phone').limit(limit);
}

export async function senderFor(db: Executor, accountId: string, phone: string): Promise<string | undefined> {
  const row = await db<MailSenderRow>('mail_senders').where({ account_id: accountId, phone }).first();
  return row?.sender;
}

/** Forgets up to `limit` of the account's senders not written to since `before`; answers how many. */
export async function forgetSendersBefore(db: Executor, accountId: string, before: Date, limit: number): Promise<number> {
  // Selected, then deleted by number, and counted from what was selected: a delete's own count is
  // not answered alike by every driver (PGlite's), and the sweep stops on a short batch.
  const quiet = await db<MailSenderRow>('mail_senders').where({ account_id: accountId }).andWhere('updated_at', '<', before).select('phone').limit(limit);
  if (quiet.length === 0) return 0;
  await db('mail_senders').where({ account_id: accountId }).whereIn('phone', quiet.map((row) => row.phone)).andWhere('updated_at', '<', before).delete();
  return quiet.length;
}
