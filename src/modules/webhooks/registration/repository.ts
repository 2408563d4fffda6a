// The webhook API's rows: the account's webhooks (and those of other formats, which their own
// module manages through WebhookService), the delivery log as it is read, and retention's deletes.
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../storage/database.ts';
import type { Cursor } from '../../../storage/paging.ts';
import type { DeliveredEvent, WebhookEvent } from '../event-contract.ts';

/**
 * How a webhook's deliveries are written and signed: 'standard' (JSON, Standard Webhooks), or
 * another format a module registers with the sender (../outbound/delivery-format.ts). Webhooks of
 * another format belong to that module: the webhook API neither lists nor changes them.
 */
export type WebhookFormat = 'standard' | 'twilio';

export interface WebhookRow {
  id: string;
  format: WebhookFormat;
  account_id: string;
  url: string;
  description: string;
  events: WebhookEvent[];
  enabled: boolean;
  disabled_reason: string | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  /** When the current run of failed attempts began; null while the endpoint works. */
  failing_since: Date | null;
  /** When it was disabled; null while enabled. */
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: DeliveredEvent;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  retry_until: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  /** The first bytes of the body of the last attempt's answer; null when it got none. */
  last_response_body: string | null;
  delivered_at: Date | null;
  created_at: Date;
  /** The SMS whose deliveries to this webhook go out in order; null for other events. */
  ordering_key: string | null;
}

export async function insertWebhook(
  db: Executor,
  values: Pick<WebhookRow, 'account_id' | 'url' | 'description' | 'events' | 'secret_encrypted'> & { format?: WebhookFormat },
): Promise<WebhookRow> {
  const now = new Date();
  const [row] = await db<WebhookRow>('webhooks')
    .insert({ id: randomUUID(), ...values, created_at: now, updated_at: now })
    .returning('*');
  return row!;
}

export async function findWebhook(db: Executor, accountId: string, id: string): Promise<WebhookRow | undefined> {
  return db<WebhookRow>('webhooks').where({ account_id: accountId, id, format: 'standard' }).first();
}

export async function listWebhooks(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<WebhookRow[]> {
  const query = db<WebhookRow>('webhooks')
    .where({ account_id: accountId, format: 'standard' })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function updateWebhook(db: Executor, accountId: string, id: string, changes: Partial<WebhookRow>): Promise<WebhookRow | undefined> {
  const [row] = await db<WebhookRow>('webhooks')
    .where({ account_id: accountId, id, format: 'standard' })
    .update({ ...changes, updated_at: new Date() })
    .returning('*');
  return row;
}

export async function deleteWebhook(db: Executor, accountId: string, id: string): Promise<boolean> {
  // The deleted rows, not a count: PGlite and pg report counts differently.
  return (await db('webhooks').where({ account_id: accountId, id, format: 'standard' }).delete().returning('id')).length > 0;
}

/** Gives webhooks of another format (their module's own) a new sealed secret. */
export async function resealFormatted(db: Executor, accountId: string, ids: string[], secretEncrypted: string): Promise<void> {
  if (ids.length === 0) return;
  await db('webhooks').where({ account_id: accountId }).whereNot({ format: 'standard' }).whereIn('id', ids).update({ secret_encrypted: secretEncrypted, updated_at: new Date() });
}

/**
 * Switches a webhook of another format back on when the gateway disabled it (410 Gone, failing
 * too long): nobody can through the webhook API, which does not show it, so a new use of it does.
 * Answers whether it was off.
 */
export async function reviveFormatted(db: Executor, accountId: string, id: string): Promise<boolean> {
  const rows = await db('webhooks')
    .where({ account_id: accountId, id, enabled: false })
    .whereNot({ format: 'standard' })
    .update({ enabled: true, disabled_reason: null, disabled_at: null, consecutive_failures: 0, failing_since: null, updated_at: new Date() })
    .returning('id');
  return rows.length > 0;
}

/** Deletes webhooks of another format (their deliveries go with them). */
export async function deleteFormatted(db: Executor, accountId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('webhooks').where({ account_id: accountId }).whereNot({ format: 'standard' }).whereIn('id', ids).delete();
}

/**
 * Whether a webhook of the account listens for any of `events`. Disabled ones count: their
 * events are kept for when they are switched back on.
 */
export async function hasWebhookFor(db: Executor, accountId: string, events: string[]): Promise<boolean> {
  const row = await db('webhooks').where({ account_id: accountId }).whereRaw('events && ?::text[]', [events]).first('id');
  return row !== undefined;
}

export async function listDeliveries(db: Executor, webhookId: string, limit: number, cursor?: Cursor): Promise<DeliveryRow[]> {
  const query = db<DeliveryRow>('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

/** The delivery of an event to a webhook (as written by the outbox). */
export async function findDeliveryOfEvent(db: Executor, webhookId: string, eventId: string): Promise<DeliveryRow | undefined> {
  return db<DeliveryRow>('webhook_deliveries').where({ webhook_id: webhookId, event_id: eventId }).first();
}

/**
 * Retention: deletes up to `limit` of the account's finished deliveries (delivered, or given up)
 * created before `before`, whose bodies repeat what their events were about (an SMS's text and
 * number); pending ones are still to be sent. Answers how many.
 */
export async function deleteFinishedDeliveriesBefore(db: Executor, accountId: string, before: Date, limit: number): Promise<number> {
  const ids = db('webhook_deliveries')
    .select('id')
    .whereIn('webhook_id', db('webhooks').select('id').where({ account_id: accountId }))
    .where('created_at', '<', before)
    .whereNot('status', 'pending')
    .limit(limit);
  const deleted = await db('webhook_deliveries').whereIn('id', ids).delete().returning('id');
  return deleted.length;
}
