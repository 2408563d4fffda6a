// The Twilio module's tables: credentials (sealed auth tokens), the webhook each (credential, URL)
// is delivered through, and which SMS were created through the Twilio API with a StatusCallback.
import type { Executor } from '../../storage/database.ts';

export interface CredentialRow {
  sid: string;
  account_id: string;
  auth_token_encrypted: string;
  friendly_name: string;
  sms_url: string | null;
  /** Devices whose incoming SMS its sms_url hears; empty: all of the account's. */
  device_ids: string[];
  /** When the gateway found its auth token cannot be decrypted with its key; null while readable. */
  auth_token_unreadable_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface TrackedSms {
  sms_id: string;
  credential_sid: string;
  callback_webhook_id: string;
  auth_token_encrypted: string;
}

export async function insertCredential(db: Executor, row: Omit<CredentialRow, 'created_at' | 'updated_at' | 'auth_token_unreadable_at'>): Promise<CredentialRow> {
  const now = new Date();
  const [inserted] = await db<CredentialRow>('twilio_credentials').insert({ ...row, created_at: now, updated_at: now }).returning('*');
  return inserted!;
}

/** Newest first; every account's when `accountId` is absent (the CLI). */
export function listCredentials(db: Executor, accountId: string | undefined, limit: number): Promise<CredentialRow[]> {
  const query = db<CredentialRow>('twilio_credentials').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'sid', order: 'desc' }]).limit(limit);
  if (accountId) query.where({ account_id: accountId });
  return query;
}

export function findCredential(db: Executor, sid: string): Promise<CredentialRow | undefined> {
  return db<CredentialRow>('twilio_credentials').where({ sid }).first();
}

export async function updateToken(db: Executor, accountId: string, sid: string, sealed: string): Promise<CredentialRow | undefined> {
  const [row] = await db<CredentialRow>('twilio_credentials')
    .where({ account_id: accountId, sid })
    .update({ auth_token_encrypted: sealed, auth_token_unreadable_at: null, updated_at: new Date() })
    .returning('*');
  return row;
}

/** Marks the credential's token unreadable; true only for the call that marked it (the others find it marked). */
export async function markTokenUnreadable(db: Executor, sid: string, at: Date): Promise<boolean> {
  const marked = await db('twilio_credentials').where({ sid }).whereNull('auth_token_unreadable_at').update({ auth_token_unreadable_at: at });
  return marked > 0;
}

export async function deleteCredential(db: Executor, accountId: string, sid: string): Promise<boolean> {
  return (await db('twilio_credentials').where({ account_id: accountId, sid }).delete().returning('sid')).length > 0;
}

export async function callbackWebhooksOf(db: Executor, sid: string): Promise<string[]> {
  const rows = await db('twilio_callbacks').where({ credential_sid: sid }).select('webhook_id');
  return rows.map((row: { webhook_id: string }) => row.webhook_id);
}

export async function findCallback(db: Executor, sid: string, url: string): Promise<string | undefined> {
  const row = await db('twilio_callbacks').where({ credential_sid: sid, url }).first('webhook_id');
  return (row as { webhook_id: string } | undefined)?.webhook_id;
}

/** Records the webhook of (credential, URL); answers the one recorded first when another request won the race. */
export async function insertCallback(db: Executor, sid: string, url: string, webhookId: string): Promise<string> {
  await db('twilio_callbacks').insert({ credential_sid: sid, url, webhook_id: webhookId }).onConflict(['credential_sid', 'url']).ignore();
  return (await findCallback(db, sid, url))!;
}

export async function insertTrackedSms(db: Executor, rows: { sms_id: string; credential_sid: string; callback_webhook_id: string }[]): Promise<void> {
  if (rows.length > 0) await db('twilio_messages').insert(rows);
}

/** The SMS among `smsIds` created with a StatusCallback, with their webhook and credential's sealed token. */
export function trackedSms(db: Executor, smsIds: string[]): Promise<TrackedSms[]> {
  return db('twilio_messages as m')
    .join('twilio_credentials as c', 'c.sid', 'm.credential_sid')
    .whereIn('m.sms_id', smsIds)
    .whereNotNull('m.callback_webhook_id')
    .select('m.sms_id', 'm.credential_sid', 'm.callback_webhook_id', 'c.auth_token_encrypted');
}

/** The account's credentials with an inbound URL that hear the device, with the webhook it is delivered through. */
/** `deviceId` null (an SMS through an upstream): only the credentials that hear every phone. */
export function inboundTargets(db: Executor, accountId: string, deviceId: string | null): Promise<{ sid: string; webhook_id: string }[]> {
  return db('twilio_credentials as c')
    .join('twilio_callbacks as b', function () {
      this.on('b.credential_sid', '=', 'c.sid').andOn('b.url', '=', 'c.sms_url');
    })
    .where('c.account_id', accountId)
    .andWhere((scope) => (deviceId === null ? scope.whereRaw('cardinality(c.device_ids) = 0') : scope.whereRaw('cardinality(c.device_ids) = 0').orWhereRaw('? = any(c.device_ids)', [deviceId])))
    .select('c.sid', 'b.webhook_id');
}

/**
 * Records a TwiML answer to an incoming SMS and whether its replies may go out: true for the first
 * delivery to answer (and for it again, its answer handed over twice), false for any other. The
 * unique index on the sent row decides between two nodes answering at once.
 */
export async function claimReply(db: Executor, incomingId: string, deliveryId: string): Promise<boolean> {
  const insert = `insert into twilio_replies (incoming_id, delivery_id, sent) values (?, ?, ?) on conflict do nothing returning sent`;
  const first = await db.raw<{ rows: unknown[] }>(insert, [incomingId, deliveryId, true]);
  if (first.rows.length === 0) await db.raw(insert, [incomingId, deliveryId, false]);
  const row = await db('twilio_replies').where({ incoming_id: incomingId, delivery_id: deliveryId }).first('sent');
  return row?.sent === true;
}
