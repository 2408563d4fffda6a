// The stored rows tests read and set directly, when the API does not show what a test checks (a
// column it never returns, a row it must not leave behind) or cannot put a row in the state a test
// needs (created an hour ago, last seen yesterday). The tables and their columns are named here
// only: a schema change is made here, not in every test that looks at a row.
import type { Database } from '../../src/storage/database.ts';
import type { Gateway } from '../../src/gateway.ts';
import { GatewayFixture } from './use-gateway.ts';

/** A gateway, or the fixture whose gateway it is. */
export type WithDatabase = Gateway | GatewayFixture;

/** A stored row, typed as loosely as the database driver returns it: each test reads the columns it checks. */
export type Row = any;

function db(target: WithDatabase): Database {
  return (target instanceof GatewayFixture ? target.gateway : target).services.db;
}

/** The SMS row `id`, or undefined when there is none. */
export async function smsRow(target: WithDatabase, id: string): Promise<Row | undefined> {
  return db(target)('sms').where({ id }).first();
}

/** Every SMS row of the account, oldest first. */
export async function smsRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('sms').where({ account_id: accountId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** How many SMS rows the account has. */
export async function smsCountOf(target: WithDatabase, accountId: string): Promise<number> {
  const [row] = await db(target)('sms').where({ account_id: accountId }).count({ n: '*' });
  return Number(row!.n);
}

/** Sets columns of the SMS `id` (a past created_at, a status the API would not allow); how many rows changed. */
export async function updateSms(target: WithDatabase, id: string, values: Row): Promise<number> {
  return db(target)('sms').where({ id }).update(values);
}

/** The device row `id`, or undefined when there is none. */
export async function deviceRow(target: WithDatabase, id: string): Promise<Row | undefined> {
  return db(target)('devices').where({ id }).first();
}

/** Sets columns of the devices `ids` (one or several); how many rows changed. */
export async function updateDevices(target: WithDatabase, ids: string | string[], values: Row): Promise<number> {
  return db(target)('devices').whereIn('id', typeof ids === 'string' ? [ids] : ids).update(values);
}

/** Every received SMS row of the account, oldest first. */
export async function incomingRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('incoming_sms').where({ account_id: accountId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** Every delivery row of the webhook, in the order its events were written. */
export async function deliveryRowsOf(target: WithDatabase, webhookId: string): Promise<Row[]> {
  return db(target)('webhook_deliveries').where({ webhook_id: webhookId }).orderBy('seq');
}

/** The salt the account's redacted phone numbers are hashed with. */
export async function recipientSalt(target: WithDatabase, accountId: string): Promise<string> {
  const row = await db(target)('account_retention').where({ account_id: accountId }).first('recipient_salt');
  if (!row) throw new Error(`account ${accountId} has no retention row`);
  return row.recipient_salt;
}

/** The MMS rows of the SMS `smsId` (its MMS content). */
export async function mmsRowsOf(target: WithDatabase, smsId: string): Promise<Row[]> {
  return db(target)('mms_messages').where({ sms_id: smsId });
}

/** How many panel sessions the user has stored. */
export async function sessionCountOf(target: WithDatabase, userId: string): Promise<number> {
  const [row] = await db(target)('sessions').where({ user_id: userId }).count({ n: '*' });
  return Number(row!.n);
}

/** The SMS row `id` once deleted: what the gateway keeps of it (ids and time), or none. */
export async function deletedSmsRows(target: WithDatabase, id: string): Promise<Row[]> {
  return db(target)('deleted_sms').where({ id });
}

/** The SMPP credential row `id` as stored (a test looks for the password in it). */
export async function storedSmppCredential(target: WithDatabase, id: string): Promise<Row | undefined> {
  return db(target)('smpp_credentials').where({ id }).first();
}

/** Whether a delivery receipt for the SMPP message `messageId` waits to be handed to an ESME. */
export async function smppReceiptKept(target: WithDatabase, messageId: string): Promise<boolean> {
  return (await db(target)('smpp_receipts').where({ receipted_message_id: messageId }).first()) !== undefined;
}

/** The Twilio credential's auth token exactly as its column holds it at rest (sealed, never the token). */
export async function storedTwilioTokenColumn(target: WithDatabase, sid: string): Promise<string> {
  const row = await db(target)('twilio_credentials').where({ sid }).first('auth_token_encrypted');
  if (!row) throw new Error(`no Twilio credential ${sid}`);
  return row.auth_token_encrypted;
}

/** Puts `sealed` in place of the credential's stored auth token (a token sealed with another key). */
export async function replaceStoredTwilioToken(target: WithDatabase, sid: string, sealed: string): Promise<void> {
  await db(target)('twilio_credentials').where({ sid }).update({ auth_token_encrypted: sealed });
}

/** Puts `sealed` in place of the webhook's stored signing secret (a secret sealed with another key). */
export async function replaceStoredWebhookSecret(target: WithDatabase, webhookId: string, sealed: string): Promise<void> {
  await db(target)('webhooks').where({ id: webhookId }).update({ secret_encrypted: sealed });
}

/** Whether the account has a Twilio StatusCallback webhook the gateway disabled. */
export async function hasDisabledTwilioCallback(target: WithDatabase, accountId: string): Promise<boolean> {
  return (await db(target)('webhooks').where({ account_id: accountId, format: 'twilio', enabled: false }).first()) !== undefined;
}
