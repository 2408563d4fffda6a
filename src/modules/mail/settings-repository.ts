// The account's email-to-SMS settings (mail_settings); private to the mail module. No row: the
// account follows the gateway's SMTP_TEXT.
import type { Executor } from '../../storage/database.ts';
import type { MailSettingsRow, MailTextSource } from './types.ts';

export async function findSettings(db: Executor, accountId: string): Promise<MailSettingsRow | undefined> {
  return db<MailSettingsRow>('mail_settings').where({ account_id: accountId }).first();
}

export async function saveText(db: Executor, accountId: string, text: MailTextSource, now: Date): Promise<void> {
  await db('mail_settings').insert({ account_id: accountId, text, updated_at: now }).onConflict('account_id').merge(['text', 'updated_at']);
}

export async function forgetText(db: Executor, accountId: string): Promise<void> {
  await db('mail_settings').where({ account_id: accountId }).delete();
}
