// The stored rows tests read and set directly, when the API does not show what a test checks (a
// column it never returns, a row it must not leave behind) or cannot put a row in the state a test
// needs (created an hour ago, last seen yesterday), or holds a row's lock for a lock-order test.
// The tables and their columns are named here only: a schema change is made here, not in every
// test that looks at a row.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/storage/database.ts';
import type { Gateway } from '../../src/gateway.ts';
import { GatewayFixture } from './use-gateway.ts';

/** A gateway, the fixture whose gateway it is, a database of the test's own (a deployment's, a command's), or a transaction. */
export type WithDatabase = Gateway | GatewayFixture | Database;

/** A stored row, typed as loosely as the database driver returns it: each test reads the columns it checks. */
export type Row = any;

function db(target: WithDatabase): Database {
  if (typeof target === 'function') return target;
  return (target instanceof GatewayFixture ? target.gateway : target).services.db;
}

// SMS and their history

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

/** How many SMS rows the database holds, of every account. */
export async function allSmsCount(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('sms').count({ n: '*' });
  return Number(row!.n);
}

/** Which of the SMS `ids` are stored. */
export async function storedSmsIdsAmong(target: WithDatabase, ids: string[]): Promise<string[]> {
  return db(target)('sms').whereIn('id', ids).pluck('id');
}

/** Sets columns of the SMS `id` (a past created_at, a status the API would not allow); how many rows changed. */
export async function updateSms(target: WithDatabase, id: string, values: Row): Promise<number> {
  return db(target)('sms').where({ id }).update(values);
}

/**
 * Writes `count` delivered SMS of the account in one insert, as an import or a busy month would
 * leave them: "order {i}", one in three also "urgent", each a second older than the one before.
 */
export async function fillSmsHistory(target: WithDatabase, accountId: string, count: number): Promise<void> {
  await db(target).raw(
    `insert into sms (id, object_id, account_id, device_id, device_named, phone, message, status, created_at, updated_at)
     select gen_random_uuid(), substr(md5(random()::text || i), 1, 24), ?, null, false, '+79160000000',
            'order ' || i || case when i % 3 = 0 then ' urgent' else '' end, 'delivered',
            now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
       from generate_series(1, ?) as i`,
    [accountId, count],
  );
}

/** When the SMS `ids` were handed to a phone, in ms, earliest first. */
export async function dispatchTimesOf(target: WithDatabase, ids: string[]): Promise<number[]> {
  const rows = await db(target)('sms').whereIn('id', ids).orderBy('dispatched_at').select('dispatched_at');
  return rows.map((row: Row) => (row.dispatched_at as Date).getTime());
}

/** When the SMS given to the device were handed to it, in ms, earliest first. */
export async function dispatchTimesOfDevice(target: WithDatabase, deviceId: string): Promise<number[]> {
  const rows = await db(target)('sms').where({ device_id: deviceId }).orderBy('dispatched_at').select('dispatched_at');
  return rows.map((row: Row) => (row.dispatched_at as Date).getTime());
}

/** How many status history rows the database holds, of every account's SMS. */
export async function allStatusHistoryCount(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('sms_status_history').count({ n: '*' });
  return Number(row!.n);
}

/** Adds a status the SMS went through at `at`, as a device report would have recorded it. */
export async function recordStatusHistory(target: WithDatabase, smsId: string, status: string, at: Date): Promise<void> {
  await db(target)('sms_status_history').insert({ sms_id: smsId, status, source: 'device', created_at: at });
}

/** The SMS row `id` once deleted: what the gateway keeps of it (ids and time), or none. */
export async function deletedSmsRows(target: WithDatabase, id: string): Promise<Row[]> {
  return db(target)('deleted_sms').where({ id });
}

/** The rows of the account's search text (what was copied for searching), oldest first. */
export async function searchRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('sms_search').where({ account_id: accountId }).orderBy('created_at').select('sms_id', 'message', 'phone');
}

/**
 * What the database holds about who wrote an SMS: its search text with the transaction that last
 * wrote it, the transaction of its first history entry, and the one that last wrote the SMS row.
 */
export async function smsWriters(target: WithDatabase, id: string): Promise<{ search: Row; firstHistory: string; sms: string }> {
  const database = db(target);
  const writer = database.raw('xmin::text as written_by');
  const [search] = await database('sms_search').where({ sms_id: id }).select('message', 'phone', writer);
  const [first] = await database('sms_status_history').where({ sms_id: id }).orderBy('id').limit(1).select(writer);
  const sms = await database('sms').where({ id }).first(writer);
  return { search, firstHistory: first.written_by, sms: sms.written_by };
}

/** The device and SIM the account's sticky sender keeps for the number, or undefined when none. */
export async function stickySenderOf(target: WithDatabase, accountId: string, phone: string): Promise<{ device_id: string; sim_slot: number } | undefined> {
  return db(target)('sticky_senders').where({ account_id: accountId, phone }).first('device_id', 'sim_slot');
}

/** Takes the lock on the SMS row in the transaction `trx`. */
export async function lockSmsRow(trx: WithDatabase, id: string): Promise<void> {
  await db(trx).raw('select 1 from sms where id = ? for update', [id]);
}

/** Takes the lock on the SMS's attempt rows in the transaction `trx`, as a status report's batch would. */
export async function lockSmsAttempts(trx: WithDatabase, smsId: string): Promise<void> {
  await db(trx).raw('select 1 from sms_attempts where sms_id = ? for update', [smsId]);
}

// Devices and their SIMs

/** The device row `id`, or undefined when there is none. */
export async function deviceRow(target: WithDatabase, id: string): Promise<Row | undefined> {
  return db(target)('devices').where({ id }).first();
}

/** Sets columns of the devices `ids` (one or several); how many rows changed. */
export async function updateDevices(target: WithDatabase, ids: string | string[], values: Row): Promise<number> {
  return db(target)('devices').whereIn('id', typeof ids === 'string' ? [ids] : ids).update(values);
}

/** Every row of the account a device message could touch (its devices, SMS, their history, received SMS), each in id order. */
export async function deviceTouchedRowsOf(target: WithDatabase, accountId: string): Promise<Record<string, Row[]>> {
  const smsIds = db(target)('sms').select('id').where({ account_id: accountId });
  return {
    devices: await db(target)('devices').where({ account_id: accountId }).orderBy('id'),
    sms: await db(target)('sms').where({ account_id: accountId }).orderBy('id'),
    history: await db(target)('sms_status_history').whereIn('sms_id', smsIds).orderBy('id'),
    incoming: await db(target)('incoming_sms').where({ account_id: accountId }).orderBy('id'),
  };
}

/** Takes the write lock on the device row in the transaction `trx`, changing nothing in it. */
export async function lockDeviceRow(trx: WithDatabase, id: string): Promise<void> {
  await db(trx).raw('update devices set consecutive_failures = consecutive_failures where id = ?', [id]);
}

/** The health row of the device's SIM `slot`, or undefined when it has none. */
export async function simHealthOf(target: WithDatabase, deviceId: string, slot: number): Promise<Row | undefined> {
  return db(target)('sim_health').where({ device_id: deviceId, sim_slot: slot }).first();
}

/** The health rows of the device's SIMs, by slot. */
export async function simHealthRowsOf(target: WithDatabase, deviceId: string): Promise<Row[]> {
  return db(target)('sim_health').where({ device_id: deviceId }).orderBy('sim_slot');
}

/** The degraded SIMs' health rows of the devices. */
export async function degradedSimsOf(target: WithDatabase, deviceIds: string[]): Promise<Row[]> {
  return db(target)('sim_health').whereIn('device_id', deviceIds).whereNotNull('degraded_fault');
}

/** Marks the device's SIM `slot` degraded since `since` (now by default), at fault for `fault`, as the health judge would. */
export async function degradeSim(target: WithDatabase, deviceId: string, slot: number, fault: 'send' | 'receive', reason: string | null = null, since = new Date()): Promise<void> {
  await db(target)('sim_health')
    .insert({ device_id: deviceId, sim_slot: slot, degraded_since: since, degraded_reason: reason, degraded_fault: fault })
    .onConflict(['device_id', 'sim_slot'])
    .merge();
}

/** Gives the device's SIM `slot` a health row that says it is healthy. */
export async function healthySim(target: WithDatabase, deviceId: string, slot: number): Promise<void> {
  await db(target)('sim_health')
    .insert({ device_id: deviceId, sim_slot: slot, consecutive_failures: 0, degraded_since: null, degraded_reason: null, degraded_fault: null })
    .onConflict(['device_id', 'sim_slot'])
    .merge();
}

/** Clears the degraded state of the device's SIM `slot`, as its recovery would. */
export async function recoverSim(target: WithDatabase, deviceId: string, slot: number): Promise<void> {
  await db(target)('sim_health').where({ device_id: deviceId, sim_slot: slot }).update({ degraded_since: null, degraded_reason: null, degraded_fault: null });
}

/** How many monthly usage rows (SMS counted against a SIM's limit) the device has. */
export async function simMonthUsageCount(target: WithDatabase, deviceId: string): Promise<number> {
  const [row] = await db(target)('sim_month_usage').where({ device_id: deviceId }).count({ n: '*' });
  return Number(row!.n);
}

// Received SMS and MMS, media

/** Every received SMS row of the account, oldest first. */
export async function incomingRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('incoming_sms').where({ account_id: accountId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** The account's received SMS rows a device reported, oldest first. */
export async function incomingRowsOfDevice(target: WithDatabase, deviceId: string): Promise<Row[]> {
  return db(target)('incoming_sms').where({ device_id: deviceId }).orderBy('created_at', 'asc');
}

/** Sets when the account's received SMS with this text was stored (received a known time apart). */
export async function stampIncoming(target: WithDatabase, accountId: string, message: string, createdAt: Date): Promise<number> {
  return db(target)('incoming_sms').where({ account_id: accountId, message }).update({ created_at: createdAt });
}

/** The MMS rows of the SMS `smsId` (its MMS content). */
export async function mmsRowsOf(target: WithDatabase, smsId: string): Promise<Row[]> {
  return db(target)('mms_messages').where({ sms_id: smsId });
}

/** The received MMS rows the device reported. */
export async function incomingMmsRowsOf(target: WithDatabase, deviceId: string): Promise<Row[]> {
  return db(target)('incoming_mms').where({ device_id: deviceId });
}

/** The parts stored for the received MMS `mmsId`. */
export async function incomingMmsPartRowsOf(target: WithDatabase, mmsId: string): Promise<Row[]> {
  return db(target)('incoming_mms_parts').where({ mms_id: mmsId });
}

/** The uploaded media rows of the account. */
export async function mediaRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('media').where({ account_id: accountId });
}

/** Dates a stored media item as if uploaded at `createdAt` (retention reads the row's date). */
export async function stampMedia(target: WithDatabase, mediaId: string, createdAt: Date): Promise<number> {
  return db(target)('media').where({ id: mediaId }).update({ created_at: createdAt });
}

// Calls and their recordings

/** Every call row of the account, in id order. */
export async function callRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('calls').where({ account_id: accountId }).orderBy('id');
}

/** The gateway's id of the call the device reported as `deviceCallId`. */
export async function callIdOf(target: WithDatabase, deviceId: string, deviceCallId: string): Promise<string> {
  const row = await db(target)('calls').where({ device_id: deviceId, device_call_id: deviceCallId }).first('id');
  if (!row) throw new Error(`device ${deviceId} reported no call ${deviceCallId}`);
  return row.id;
}

/** The recording rows of the calls `callIds` (one or several). */
export async function recordingRowsOf(target: WithDatabase, callIds: string | string[]): Promise<Row[]> {
  return db(target)('call_recordings').whereIn('call_id', typeof callIds === 'string' ? [callIds] : callIds);
}

/** Stores a recording row as an upload would have left it (the test names its file and sizes). */
export async function insertRecording(target: WithDatabase, row: Row): Promise<void> {
  await db(target)('call_recordings').insert(row);
}

/** Sets when the recording of the call `callId` was stored (older or newer than retention keeps). */
export async function stampRecording(target: WithDatabase, callId: string, createdAt: Date): Promise<number> {
  return db(target)('call_recordings').where({ call_id: callId }).update({ created_at: createdAt });
}

// Webhooks and their deliveries

/** Every delivery row of the webhook, in the order its events were written. */
export async function deliveryRowsOf(target: WithDatabase, webhookId: string): Promise<Row[]> {
  return db(target)('webhook_deliveries').where({ webhook_id: webhookId }).orderBy('seq');
}

/** The account's delivery rows of one event type, in the order they were written. */
export async function deliveryRowsOfType(target: WithDatabase, accountId: string, eventType: string): Promise<Row[]> {
  return db(target)('webhook_deliveries').where({ account_id: accountId, event_type: eventType }).orderBy('seq');
}

/** Every webhook's delivery rows of one ordering key (an SMS id), in the order written. */
export async function deliveryRowsOfKey(target: WithDatabase, orderingKey: string): Promise<Row[]> {
  return db(target)('webhook_deliveries').where({ ordering_key: orderingKey }).orderBy('seq');
}

/** The webhook's pending deliveries of one ordering key (an SMS id). */
export async function pendingDeliveriesOf(target: WithDatabase, webhookId: string, orderingKey: string): Promise<Row[]> {
  return db(target)('webhook_deliveries').where({ webhook_id: webhookId, ordering_key: orderingKey, status: 'pending' });
}

/** Whether any delivery of the account is still pending. */
export async function hasPendingDelivery(target: WithDatabase, accountId: string): Promise<boolean> {
  return (await db(target)('webhook_deliveries').where({ account_id: accountId, status: 'pending' }).first()) !== undefined;
}

/** The ordering key (an SMS id, or the event's own) of the delivery `id`. */
export async function orderingKeyOf(target: WithDatabase, deliveryId: string): Promise<string> {
  const row = await db(target)('webhook_deliveries').where({ id: deliveryId }).first('ordering_key');
  if (!row) throw new Error(`no delivery ${deliveryId}`);
  return row.ordering_key;
}

/** The state of each of the webhook's deliveries (due: its next attempt's time has come), by ordering key, then in chain order. */
export async function deliveryStatesOf(
  target: WithDatabase,
  webhookId: string,
): Promise<{ ordering_key: string; status: string; ready: boolean; attempts: number; due: boolean }[]> {
  const { rows } = await db(target).raw(
    `select ordering_key, status, ready, attempts, next_attempt_at <= now() as due from webhook_deliveries where webhook_id = ? order by ordering_key, seq`,
    [webhookId],
  );
  return rows;
}

/** A chain's deliveries as a stuck test explains them: each one's state, seconds until due and leased for (negative: past), last error; in chain order. */
export async function deliveryChainOf(
  target: WithDatabase,
  webhookId: string,
  orderingKey: string,
): Promise<{ seq: string; status: string; ready: boolean; attempts: number; due_in: number | null; leased_for: number | null; last_error: string | null }[]> {
  const { rows } = await db(target).raw(
    `select seq, status, ready, attempts, last_error,
            round(extract(epoch from next_attempt_at - now())::numeric, 1)::float as due_in,
            round(extract(epoch from leased_until - now())::numeric, 1)::float as leased_for
       from webhook_deliveries where webhook_id = ? and ordering_key = ? order by seq`,
    [webhookId, orderingKey],
  );
  return rows;
}

/** Makes the delivery the head of its chain with an attempt under way: one attempt made, leased and due again in a minute. */
export async function leaseDelivery(target: WithDatabase, id: string): Promise<void> {
  await db(target).raw(
    `update webhook_deliveries set ready = true, attempts = 1, next_attempt_at = now() + interval '1 minute', leased_until = now() + interval '1 minute' where id = ?`,
    [id],
  );
}

/** The delivery's one attempt failed: it is due again in a minute. */
export async function delayDelivery(target: WithDatabase, id: string): Promise<void> {
  await db(target).raw(`update webhook_deliveries set attempts = 1, next_attempt_at = now() + interval '1 minute' where id = ?`, [id]);
}

/** The delivery's retry window closed a second ago. */
export async function closeDeliveryRetries(target: WithDatabase, id: string): Promise<void> {
  await db(target).raw(`update webhook_deliveries set retry_until = now() - interval '1 second' where id = ?`, [id]);
}

/** The delivery was given up after `attempts` attempts: failed, no longer the head. */
export async function giveUpDelivery(target: WithDatabase, id: string, attempts: number): Promise<void> {
  await db(target)('webhook_deliveries').where({ id }).update({ status: 'failed', ready: false, attempts });
}

/** Leaves none of the webhook's deliveries next in its chain (none ready), as a lost write could; `target` may be a transaction. */
export async function leaveChainWithoutHead(target: WithDatabase, webhookId: string): Promise<void> {
  await db(target)('webhook_deliveries').where({ webhook_id: webhookId }).update({ ready: false });
}

/** Takes the locks on the webhook's pending deliveries of one ordering key in the transaction `trx`, in chain order, as the sender does. */
export async function lockPendingDeliveries(trx: WithDatabase, webhookId: string, orderingKey: string): Promise<void> {
  await db(trx).raw(`select 1 from webhook_deliveries where webhook_id = ? and ordering_key = ? and status = 'pending' order by seq for update`, [webhookId, orderingKey]);
}

/** Marks the webhook failing since `since`, after `failures` failures in a row, as its deliveries would have. */
export async function markWebhookFailing(target: WithDatabase, webhookId: string, since: Date, failures: number): Promise<void> {
  await db(target)('webhooks').where({ id: webhookId }).update({ failing_since: since, consecutive_failures: failures });
}

/** Disables the webhook with `reason`, as its row would read, without telling the gateway's sender. */
export async function markWebhookDisabled(target: WithDatabase, webhookId: string, reason: string): Promise<void> {
  await db(target).raw(`update webhooks set enabled = false, disabled_reason = ?, disabled_at = now() where id = ?`, [reason, webhookId]);
}

/** Puts `sealed` in place of the webhook's stored signing secret (a secret sealed with another key). */
export async function replaceStoredWebhookSecret(target: WithDatabase, webhookId: string, sealed: string): Promise<void> {
  await db(target)('webhooks').where({ id: webhookId }).update({ secret_encrypted: sealed });
}

/** Deletes every webhook of these accounts (and, by cascade, their deliveries). */
export async function removeWebhooksOf(target: WithDatabase, accountIds: string[]): Promise<void> {
  await db(target)('webhooks').whereIn('account_id', accountIds).delete();
}

// Twilio and SMPP

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

/** Whether the account has a Twilio StatusCallback webhook the gateway disabled. */
export async function hasDisabledTwilioCallback(target: WithDatabase, accountId: string): Promise<boolean> {
  return (await db(target)('webhooks').where({ account_id: accountId, format: 'twilio', enabled: false }).first()) !== undefined;
}

/** The SMS a Twilio credential sent and the StatusCallback webhook it named (its first message). */
export async function twilioMessageOf(target: WithDatabase, credentialSid: string): Promise<{ smsId: string; callbackWebhookId: string | null }> {
  const row = await db(target)('twilio_messages').where({ credential_sid: credentialSid }).first();
  if (!row) throw new Error(`credential ${credentialSid} sent no message`);
  return { smsId: row.sms_id, callbackWebhookId: row.callback_webhook_id };
}

/** Links the SMS to the Twilio credential that sent it, with no StatusCallback. */
export async function recordTwilioMessage(target: WithDatabase, smsId: string, credentialSid: string): Promise<void> {
  await db(target)('twilio_messages').insert({ sms_id: smsId, credential_sid: credentialSid, callback_webhook_id: null });
}

/** The answers to Twilio replies of the account's received SMS: whether each was sent. */
export async function twilioRepliesOf(target: WithDatabase, accountId: string): Promise<{ sent: boolean }[]> {
  return db(target)('twilio_replies as r').join('incoming_sms as i', 'i.id', 'r.incoming_id').where('i.account_id', accountId).select('r.sent');
}

/** The SMPP credential row `id` as stored (a test looks for the password in it). */
export async function storedSmppCredential(target: WithDatabase, id: string): Promise<Row | undefined> {
  return db(target)('smpp_credentials').where({ id }).first();
}

/** Whether a delivery receipt for the SMPP message `messageId` waits to be handed to an ESME. */
export async function smppReceiptKept(target: WithDatabase, messageId: string): Promise<boolean> {
  return (await db(target)('smpp_receipts').where({ receipted_message_id: messageId }).first()) !== undefined;
}

// Fleet health: canary probes

/** Stores canary probe rows as rounds would have left them. */
export async function insertCanaryProbes(target: WithDatabase, rows: Row[]): Promise<void> {
  await db(target)('canary_probes').insert(rows);
}

/** The account's canary probes of one round, by sending device and SIM. */
export async function canaryProbesOfRound(target: WithDatabase, accountId: string, roundNumber: number): Promise<Row[]> {
  return db(target)('canary_probes')
    .where({ account_id: accountId, round_number: roundNumber })
    .orderBy([{ column: 'sender_device_id' }, { column: 'sender_sim' }]);
}

/** Sets when the account's canary probes of one round ended (an answer arriving late). */
export async function endCanaryRound(target: WithDatabase, accountId: string, roundNumber: number, endedAt: Date): Promise<number> {
  return db(target)('canary_probes').where({ account_id: accountId, round_number: roundNumber }).update({ ended_at: endedAt });
}

// Accounts, keys, users, sessions

/** Writes an account row (no key, no user); answers its id. */
export async function insertAccount(target: WithDatabase, name: string): Promise<string> {
  const id = randomUUID();
  await db(target)('accounts').insert({ id, name });
  return id;
}

/** The names of every account, of the whole database. */
export async function allAccountNames(target: WithDatabase): Promise<string[]> {
  return db(target)('accounts').pluck('name');
}

/** How many API keys the database holds, of every account. */
export async function allApiKeyCount(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('api_keys').count({ n: '*' });
  return Number(row!.n);
}

/** How many users the database holds, of every account. */
export async function allUserCount(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('users').count({ n: '*' });
  return Number(row!.n);
}

/** How many panel sessions the user has stored. */
export async function sessionCountOf(target: WithDatabase, userId: string): Promise<number> {
  const [row] = await db(target)('sessions').where({ user_id: userId }).count({ n: '*' });
  return Number(row!.n);
}

/** The salt the account's redacted phone numbers are hashed with. */
export async function recipientSalt(target: WithDatabase, accountId: string): Promise<string> {
  const row = await db(target)('account_retention').where({ account_id: accountId }).first('recipient_salt');
  if (!row) throw new Error(`account ${accountId} has no retention row`);
  return row.recipient_salt;
}

/** How many records of the key the secrets are sealed with the database holds (none before the check existed). */
export async function secretKeyCheckCount(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('secret_key_check').count({ n: '*' });
  return Number(row!.n);
}

/** Forgets which key the secrets are sealed with, as a database from before the check. */
export async function removeSecretKeyCheck(target: WithDatabase): Promise<void> {
  await db(target)('secret_key_check').delete();
}

// Opt-outs, mail, conversations

/** Stores suppression rows (opted-out numbers) as the opt-out module would have. */
export async function insertSuppressions(target: WithDatabase, rows: Row[]): Promise<void> {
  await db(target)('suppressions').insert(rows);
}

/** The account's email-to-SMS choice as stored (the text rows it keeps). */
export async function mailSettingsRowsOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('mail_settings').where({ account_id: accountId }).select('text');
}

/** Who wrote to which number by email, as the account keeps it. */
export async function mailSendersOf(target: WithDatabase, accountId: string): Promise<Row[]> {
  return db(target)('mail_senders').where({ account_id: accountId }).select('phone', 'sender');
}

/** Removes the account's conversations, as before conversations existed (what their backfill starts from). */
export async function removeConversationsOf(target: WithDatabase, accountId: string): Promise<void> {
  await db(target)('conversations').where({ account_id: accountId }).delete();
}

// Files queued for removal

/** The highest id in the queue of files to remove (0 when none was ever queued). */
export async function lastQueuedFileRemoval(target: WithDatabase): Promise<number> {
  const [row] = await db(target)('file_removals').max<{ id: number | string | null }[]>({ id: 'id' });
  return Number(row?.id ?? 0);
}

/** The files queued for removal after the id `since`, in queue order. */
export async function fileRemovalsSince(target: WithDatabase, since: number): Promise<Row[]> {
  return db(target)('file_removals').where('id', '>', since).orderBy('id');
}

/** Queues files of `store` for removal by their keys; `target` may be a transaction. */
export async function queueFileRemovals(target: WithDatabase, store: 'media' | 'recordings', keys: string[]): Promise<void> {
  await db(target)('file_removals').insert(keys.map((storage_key) => ({ store, storage_key })));
}

/** The files of these keys still queued for removal, with the attempts made, in queue order. */
export async function queuedFileRemovals(target: WithDatabase, keys: string[]): Promise<{ key: string; attempts: number }[]> {
  const rows = await db(target)('file_removals').whereIn('storage_key', keys).orderBy('id').select('storage_key', 'attempts');
  return rows.map((row: Row) => ({ key: row.storage_key as string, attempts: Number(row.attempts) }));
}
