import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { Cursor } from '../../http/pagination.ts';
import type { WebhookEvent } from './events.ts';

export interface WebhookRow {
  id: string;
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
  created_at: Date;
  updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: WebhookEvent;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  retry_until: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export async function insertWebhook(
  db: Executor,
  values: Pick<WebhookRow, 'account_id' | 'url' | 'description' | 'events' | 'secret_encrypted'>,
): Promise<WebhookRow> {
  const now = new Date();
  const [row] = await db<WebhookRow>('webhooks')
    .insert({ id: randomUUID(), ...values, created_at: now, updated_at: now })
    .returning('*');
  return row!;
}

export async function findWebhook(db: Executor, accountId: string, id: string): Promise<WebhookRow | undefined> {
  return db<WebhookRow>('webhooks').where({ account_id: accountId, id }).first();
}

export async function listWebhooks(db: Executor, accountId: string, limit: number, cursor?: Cursor): Promise<WebhookRow[]> {
  const query = db<WebhookRow>('webhooks')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

export async function updateWebhook(db: Executor, accountId: string, id: string, changes: Partial<WebhookRow>): Promise<WebhookRow | undefined> {
  const [row] = await db<WebhookRow>('webhooks')
    .where({ account_id: accountId, id })
    .update({ ...changes, updated_at: new Date() })
    .returning('*');
  return row;
}

export async function deleteWebhook(db: Executor, accountId: string, id: string): Promise<boolean> {
  // The deleted rows, not a count: PGlite and pg report counts differently.
  return (await db('webhooks').where({ account_id: accountId, id }).delete().returning('id')).length > 0;
}

/** Whether an enabled webhook of the account listens for any of `events`. */
export async function hasWebhookFor(db: Executor, accountId: string, events: string[]): Promise<boolean> {
  const row = await db('webhooks').where({ account_id: accountId, enabled: true }).whereRaw('events && ?::text[]', [events]).first('id');
  return row !== undefined;
}

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  account_id: string;
  /** The SMS whose deliveries to this webhook go out in order; null for other events. */
  ordering_key: string | null;
  body: string;
  attempts: number;
  retry_until: Date;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims due deliveries of enabled webhooks. Rows are locked with SKIP LOCKED while their lease
 * is taken (next_attempt_at pushed past the send), so several gateway processes never send the
 * same delivery at once; a process that dies mid-send lets the lease run out and another retries.
 *
 * Order: a delivery with an ordering key (an SMS's event) is claimed only while no earlier
 * delivery of the same (webhook, key) is still pending, whether that one waits for its retry,
 * is due too, or is leased and in flight right now (its status stays pending until its outcome
 * is recorded). So only the head of each chain is ever claimed: never two rows of one chain in a
 * batch, nor in two processes at once. The check reads the chain index (webhook_id,
 * ordering_key, seq where pending): one probe per candidate, and none for rows without a key.
 * It holds across processes: a head that is locked by another claim still reads as pending, and
 * a head's outcome and the next claim are ordered by the commit of the outcome.
 */
export async function claimDueDeliveries(db: Executor, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await db.raw<{ rows: ClaimedDelivery[] }>(
    `with due as (
       select d.id from webhook_deliveries d
         join webhooks w on w.id = d.webhook_id and w.enabled
        where d.status = 'pending' and d.next_attempt_at <= now()
          and not exists (
                select 1 from webhook_deliveries p
                 where p.webhook_id = d.webhook_id and p.ordering_key = d.ordering_key
                   and p.status = 'pending' and p.seq < d.seq)
        order by d.next_attempt_at
        limit ?
        for update of d skip locked)
     update webhook_deliveries d
        set next_attempt_at = now() + (? * interval '1 millisecond'), attempts = d.attempts + 1, last_attempt_at = now()
       from due, webhooks w
      where d.id = due.id and w.id = d.webhook_id
      returning d.id, d.webhook_id, d.account_id, d.ordering_key, d.body, d.attempts, d.retry_until,
                w.url, w.secret_encrypted, w.previous_secret_encrypted, w.previous_secret_expires_at`,
    [limit, leaseMs],
  );
  return rows;
}

export interface AttemptResult {
  id: string;
  webhookId: string;
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date;
}

/**
 * Locks webhooks against deletion (not against updates: FOR KEY SHARE) until the transaction
 * ends, in id order. The sender takes it before writing outcomes, so that deleting a webhook
 * (its row, then its deliveries by cascade) and recording its deliveries cannot deadlock.
 */
export async function lockWebhooks(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.raw(`select id from webhooks where id = any(?::uuid[]) order by id for key share`, [ids] as never);
}

/** Records a batch of attempt outcomes in one statement. */
export async function recordAttempts(db: Executor, results: AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  await db.raw(
    `update webhook_deliveries d
        set status = v.status, last_status_code = v.code, last_error = v.error, next_attempt_at = v.next_at,
            delivered_at = case when v.status = 'delivered' then now() else d.delivered_at end
       from (select unnest(?::uuid[]) as id, unnest(?::text[]) as status, unnest(?::int[]) as code,
                    unnest(?::text[]) as error, unnest(?::timestamptz[]) as next_at) v
      where d.id = v.id`,
    [
      results.map((r) => r.id),
      results.map((r) => r.status),
      results.map((r) => r.statusCode),
      results.map((r) => r.error),
      results.map((r) => r.nextAttemptAt),
    ] as never,
  );
}

/**
 * After the outcomes of chain heads (deliveries with an ordering key) are recorded, moves the
 * deliveries waiting behind them. They cannot be claimed while their head is pending anyway; left
 * due, every claim would read past them again while a head waits hours for its retry. So:
 * - a head that will be retried: the deliveries behind it are due no earlier than that retry;
 * - a head delivered or given up: those moved later are due now (so a head retried by hand and
 *   delivered early does not leave the rest waiting for the retry it no longer needs).
 * Only deliveries never attempted are moved: one attempted before has a schedule of its own (a
 * backoff, or a lease while in flight) that must not be cut short. Whatever is moved, the claim's
 * check alone keeps the order; this only decides when rows are looked at.
 */
export async function rescheduleFollowers(db: Executor, heads: AttemptResult[]): Promise<void> {
  if (heads.length === 0) return;
  // Driven from the heads, whatever the statistics say: each head by its id, the rows behind it
  // through the chain index (the lateral subquery is kept apart by "offset 0"), each of those by
  // its id. Conditions on the moved row are checked again in SET, on the version being updated.
  await db.raw(
    `update webhook_deliveries t
        set next_attempt_at = case when t.status = 'pending' and t.attempts = 0 then f.next_at else t.next_attempt_at end
       from (select q.id, case when v.status = 'pending' then v.next_at else now() end as next_at
               from unnest(?::uuid[], ?::text[], ?::timestamptz[]) as v(id, status, next_at)
               join webhook_deliveries h on h.id = v.id
               cross join lateral (
                     select q.id, q.next_attempt_at from webhook_deliveries q
                      where q.webhook_id = h.webhook_id and q.ordering_key = h.ordering_key
                        and q.status = 'pending' and q.seq > h.seq and q.attempts = 0
                     offset 0) q
              where case when v.status = 'pending' then q.next_attempt_at < v.next_at else q.next_attempt_at > now() end) f
      where t.id = f.id`,
    [heads.map((r) => r.id), heads.map((r) => r.status), heads.map((r) => r.nextAttemptAt)] as never,
  );
}

/** Counts failures per webhook; returns the webhooks whose run of failures reached the limit. */
export async function addFailures(db: Executor, failures: Map<string, number>, disableAfter: number): Promise<string[]> {
  if (failures.size === 0) return [];
  const { rows } = await db.raw<{ rows: { id: string; enabled: boolean }[] }>(
    `update webhooks w set consecutive_failures = w.consecutive_failures + v.n,
            enabled = case when w.consecutive_failures + v.n >= ? then false else w.enabled end,
            disabled_reason = case when w.consecutive_failures + v.n >= ? and w.enabled
                                   then 'disabled after ' || (w.consecutive_failures + v.n) || ' failed attempts in a row'
                                   else w.disabled_reason end,
            updated_at = now()
       from (select unnest(?::uuid[]) as id, unnest(?::int[]) as n) v
      where w.id = v.id
      returning w.id, w.enabled`,
    [disableAfter, disableAfter, [...failures.keys()], [...failures.values()]],
  );
  return rows.filter((row) => !row.enabled).map((row) => row.id);
}

export async function resetFailures(db: Executor, webhookIds: string[]): Promise<void> {
  if (webhookIds.length === 0) return;
  await db('webhooks').whereIn('id', webhookIds).where('consecutive_failures', '>', 0).update({ consecutive_failures: 0 });
}

export async function disableWebhook(db: Executor, id: string, reason: string): Promise<void> {
  await db('webhooks').where({ id }).update({ enabled: false, disabled_reason: reason, updated_at: new Date() });
}

export async function listDeliveries(db: Executor, webhookId: string, limit: number, cursor?: Cursor): Promise<DeliveryRow[]> {
  const query = db<DeliveryRow>('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit + 1);
  if (cursor) query.whereRaw('(created_at, id) < (?, ?)', [cursor.createdAt, cursor.id]);
  return query;
}

/**
 * Puts a delivery back in the queue, due now, with a fresh retry window (the manual retry).
 *
 * Order: the delivery keeps its place (seq) among the deliveries of its SMS to this webhook. So a
 * retried delivery still waits for earlier ones of its SMS that are pending, and later ones that
 * are pending and not yet on their way wait for it: a given-up head retried by hand goes out
 * before the events of its SMS that are still queued, as it would have. Later ones already
 * delivered, or in flight at that moment, cannot be called back: the receiver then sees the
 * retried event after them (it is a resend on request, recognisable by its webhook-id).
 */
export async function requeueDelivery(db: Executor, webhookId: string, id: string, retryUntil: Date): Promise<DeliveryRow | undefined> {
  const [row] = await db<DeliveryRow>('webhook_deliveries')
    .where({ webhook_id: webhookId, id })
    .update({ status: 'pending', next_attempt_at: new Date(), retry_until: retryUntil })
    .returning('*');
  return row;
}
