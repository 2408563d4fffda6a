// The delivery queue the sender works: claims of due deliveries, their outcomes, failure streaks
// and disabling, giving up what waited past its retry window, and putting a delivery back by hand.
// Each statement that ends a chain's head moves the head on (ordering/chain-heads.ts).
import { inTransaction, type Database, type Executor } from '../../storage/database.ts';
import { chainsOf } from './ordering/chain-heads.ts';
import { advanceChains } from './ordering/repository.ts';
import type { DeliveryRow, DeliveryStatus, WebhookFormat, WebhookRow } from './registration/repository.ts';

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
  format: WebhookFormat;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims due deliveries of enabled webhooks. Rows are locked with SKIP LOCKED while their lease
 * is taken (next_attempt_at pushed past the send), so several gateway processes never send the
 * same delivery at once; a process that dies mid-send lets the lease run out and another retries.
 *
 * Order: only ready deliveries are claimed, the head of each (webhook, SMS) chain and the
 * deliveries without an ordering key (ordering/chain-heads.ts). A head stays pending, and its followers
 * not ready, until its outcome is recorded, so never two rows of one chain go out at once, in one
 * batch or in two processes. The scan is the index of ready rows by next_attempt_at: it reads
 * about as many rows as it claims, however many deliveries wait behind their heads.
 */
export async function claimDueDeliveries(db: Executor, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { settings, sql, bindings } = claimStatement(limit, leaseMs);
  return inTransaction(db, async (trx) => {
    await trx.raw(settings);
    const { rows } = await trx.raw<{ rows: ClaimedDelivery[] }>(sql, bindings);
    return rows;
  });
}

/**
 * The claim as SQL and its bindings, and the settings its transaction runs it with; apart so
 * that its plan can be examined (EXPLAIN, after `settings`). Its transaction is the claim alone.
 * - Its commit need not wait for the WAL flush: a lease lost in a database crash only means the
 *   delivery is sent again.
 * - No bitmap scan: every claim and every delivery's outcome leaves a dead entry in the index of
 *   ready rows (the claim moves next_attempt_at, the outcome the status), behind the due ones
 *   until a vacuum. A bitmap scan reads each of them and its row on every claim and marks none,
 *   and it is the plan a young table's statistics choose (a few due rows to sort): thousands of
 *   entries and a thousand pages a claim in a burst. An index scan marks the dead entries it
 *   passes, which the next claims skip without reading their rows.
 */
export function claimStatement(limit: number, leaseMs: number): { settings: string; sql: string; bindings: number[] } {
  return {
    settings: `select set_config('synchronous_commit', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
    sql: `with due as (
       select d.id from webhook_deliveries d
         join webhooks w on w.id = d.webhook_id and w.enabled
        where d.status = 'pending' and d.ready and d.next_attempt_at <= now()
        order by d.next_attempt_at
        limit ?
        for update of d skip locked)
     update webhook_deliveries d
        set next_attempt_at = now() + (? * interval '1 millisecond'), leased_until = now() + (? * interval '1 millisecond'),
            attempts = d.attempts + 1, last_attempt_at = now()
       from due, webhooks w
      where d.id = due.id and w.id = d.webhook_id
      returning d.id, d.webhook_id, d.account_id, d.ordering_key, d.body, d.attempts, d.retry_until,
                w.url, w.format, w.secret_encrypted, w.previous_secret_encrypted, w.previous_secret_expires_at`,
    bindings: [limit, leaseMs, leaseMs],
  };
}

export interface AttemptResult {
  id: string;
  webhookId: string;
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  /** The start of the answer's body; null when there was no answer. */
  answer: string | null;
  nextAttemptAt: Date;
}

/**
 * Locks webhooks until the transaction ends, in id order, before the sender writes outcomes.
 * - Against deletion: deleting a webhook locks its row, then its deliveries by cascade; taking
 *   the row first here too, neither waits for the other in a circle.
 * - Against another sender recording for the same webhook (FOR NO KEY UPDATE: writers of the
 *   webhook's streak wait for each other, in id order). Without it, two senders could each hold
 *   a webhook row the other updates next, or hold the row while a delivery being written (which
 *   holds its chain's rows, ordering/chain-heads.ts) waits for the other's deliveries.
 * The rows are still readable, and deliveries are written for them meanwhile (the foreign key
 * check takes a KEY SHARE lock, which this does not block).
 */
export async function lockWebhooks(db: Executor, ids: string[], relaxedCommit = false): Promise<Map<string, Date | null>> {
  if (ids.length === 0) return new Map();
  // relaxedCommit: the transaction's commit need not wait for the WAL flush, said by this
  // statement (set_config(..., true), as the claim does) instead of a SET LOCAL of its own.
  const { rows } = await db.raw<{ rows: { id: string; recovered_at: Date | null }[] }>(
    relaxedCommit
      ? `with relaxed as materialized (select set_config('synchronous_commit', 'off', true))
         select w.id, w.recovered_at from webhooks w, relaxed where w.id = any(?::uuid[]) order by w.id for no key update of w`
      : `select id, recovered_at from webhooks where id = any(?::uuid[]) order by id for no key update`,
    [ids] as never,
  );
  // When each last recovered (see endStreaks).
  return new Map(rows.map((row) => [row.id, row.recovered_at]));
}

/**
 * Records a batch of attempt outcomes (of the deliveries in `claimed`, which give their chains),
 * makes the waiting deliveries of the webhooks in `resume` due now (their failure streak just
 * ended: endStreaks), and moves the head of each chain whose head was delivered or given up to
 * its next delivery.
 *
 * Every delivery row this writes is locked in one pass, in chain order (ordering/chain-heads.ts): the
 * outcomes' rows and the waiting rows together. Locked in two passes, each in order, a waiting
 * row of a later chain could be held while the outcome of an earlier chain waits for a delivery
 * being written beside it, which in turn waits for that waiting row: a deadlock, in which the
 * batch's outcomes are lost (its deliveries sent again once their lease runs out) or the SMS
 * change that wrote the delivery is undone.
 */
export async function recordAttempts(
  db: Executor,
  results: AttemptResult[],
  claimed: { id: string; webhook_id: string; ordering_key: string | null }[],
  resume: string[] = [],
): Promise<void> {
  if (results.length === 0) return;
  const ids = results.map((r) => r.id);
  // The candidates are found through the primary key and the index of pending deliveries by
  // webhook and time, then locked (and checked again as locked: a waiting row claimed meanwhile
  // is in flight, and keeps its lease). The outcomes are written in the first statement and the
  // waiting rows resumed in the second, each row once.
  await db.raw(
    `with candidates as (
       select id from webhook_deliveries where id = any(?::uuid[])
       union
       select id from webhook_deliveries
        where webhook_id = any(?::uuid[]) and status = 'pending' and next_attempt_at > now()
          and (leased_until is null or leased_until <= now())),
     locked as materialized (
       select d.id, d.id = any(?::uuid[]) as attempted from webhook_deliveries d join candidates c on c.id = d.id
        where d.id = any(?::uuid[])
           or (d.status = 'pending' and d.next_attempt_at > now() and (d.leased_until is null or d.leased_until <= now()))
        order by d.webhook_id, d.ordering_key nulls first, d.seq
        for update of d),
     resumed as (
       update webhook_deliveries d set next_attempt_at = now()
         from locked where d.id = locked.id and not locked.attempted)
     update webhook_deliveries d
        set status = v.status, last_status_code = v.code, last_error = v.error, last_response_body = v.answer,
            next_attempt_at = v.next_at, leased_until = null,
            delivered_at = case when v.status = 'delivered' then now() else d.delivered_at end
       from locked, unnest(?::uuid[], ?::text[], ?::int[], ?::text[], ?::text[], ?::timestamptz[]) as v(id, status, code, error, answer, next_at)
      where d.id = locked.id and locked.attempted and d.id = v.id`,
    [
      ids,
      resume,
      ids,
      ids,
      ids,
      results.map((r) => r.status),
      results.map((r) => r.statusCode),
      results.map((r) => r.error),
      results.map((r) => r.answer),
      results.map((r) => r.nextAttemptAt),
    ] as never,
  );
  // Only a head that is no longer pending hands its place on.
  const done = new Set(results.filter((r) => r.status !== 'pending').map((r) => r.id));
  await advanceChains(db, chainsOf(claimed.filter((delivery) => done.has(delivery.id))));
}

/** A webhook the gateway has just disabled: what the warning and the webhook.disabled event say. */
export interface DisabledWebhook {
  id: string;
  account_id: string;
  failing_since: Date | null;
  disabled_at: Date;
  disabled_reason: string;
}

/**
 * Records failed attempts per webhook and returns the webhooks this disables. A failure starts
 * the webhook's streak (failing_since) unless one is running; the webhook is disabled when an
 * attempt fails and its streak began more than `disableAfterMs` before `at`. So the rule is how
 * long the endpoint has been failing, never how many events were tried meanwhile.
 */
export async function recordFailures(db: Executor, failures: Map<string, number>, at: Date, disableAfterMs: number, window: string): Promise<DisabledWebhook[]> {
  if (failures.size === 0) return [];
  const threshold = new Date(at.getTime() - disableAfterMs);
  // In SET, w.* is the row before this update: "disable" reads the streak as it was.
  const disable = `(w.enabled and w.failing_since is not null and w.failing_since < ?::timestamptz)`;
  const { rows } = await db.raw<{ rows: (DisabledWebhook & { disabled_now: boolean })[] }>(
    `update webhooks w set consecutive_failures = w.consecutive_failures + v.n,
            failing_since = coalesce(w.failing_since, ?::timestamptz),
            enabled = case when ${disable} then false else w.enabled end,
            disabled_at = case when ${disable} then ?::timestamptz else w.disabled_at end,
            disabled_reason = case when ${disable}
                                   then 'every attempt failed for more than ' || ?::text || ' (failing since '
                                        || to_char(w.failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ')'
                                   else w.disabled_reason end,
            updated_at = now()
       from (select unnest(?::uuid[]) as id, unnest(?::int[]) as n) v
      where w.id = v.id
      returning w.id, w.account_id, w.failing_since, w.disabled_at, w.disabled_reason,
                (not w.enabled and w.disabled_at = ?::timestamptz) as disabled_now`,
    [at, threshold, threshold, at, threshold, window, [...failures.keys()], [...failures.values()], at] as never,
  );
  return rows.filter((row) => row.disabled_now).map(({ disabled_now: _, ...row }) => row);
}

/**
 * Ends the failure streak of webhooks that just had a success; returns those that had one. Their
 * deliveries that wait for a backoff are then made due now, by recordAttempts in the same
 * transaction: the endpoint is back, and waiting out backoffs that grew during an outage would
 * leave its backlog undelivered for as long again. Deliveries in flight (leased) keep their
 * lease, so none is sent twice at once.
 */
export async function endStreaks(db: Executor, webhookIds: string[], at: Date): Promise<string[]> {
  if (webhookIds.length === 0) return [];
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `update webhooks set consecutive_failures = 0, failing_since = null, recovered_at = ?::timestamptz
      where id = any(?::uuid[]) and (consecutive_failures > 0 or failing_since is not null)
      returning id`,
    [at, webhookIds] as never,
  );
  return rows.map((row) => row.id);
}

/**
 * Makes the waiting (not in-flight) deliveries of these webhooks due now (a webhook switched back
 * on). Their rows are locked in chain order first, as every writer of pending deliveries does
 * (ordering/chain-heads.ts). For use where no other delivery row is held: the sender, which holds the rows
 * it records, has recordAttempts do this in the same ordered pass.
 */
export async function resumeWaiting(db: Executor, webhookIds: string[]): Promise<void> {
  if (webhookIds.length === 0) return;
  await db.raw(
    `with waiting as materialized (
       select id from webhook_deliveries
        where webhook_id = any(?::uuid[]) and status = 'pending' and next_attempt_at > now()
          and (leased_until is null or leased_until <= now())
        order by webhook_id, ordering_key nulls first, seq
        for update)
     update webhook_deliveries d set next_attempt_at = now()
       from waiting where d.id = waiting.id and d.status = 'pending'`,
    [webhookIds] as never,
  );
}

export async function disableWebhook(db: Executor, id: string, reason: string, at: Date): Promise<DisabledWebhook | undefined> {
  const [row] = await db<WebhookRow>('webhooks')
    .where({ id, enabled: true })
    .update({ enabled: false, disabled_reason: reason, disabled_at: at, updated_at: new Date() })
    .returning(['id', 'account_id', 'failing_since', 'disabled_at', 'disabled_reason']);
  return row as DisabledWebhook | undefined;
}

/**
 * Gives up the deliveries of disabled webhooks whose retry window has closed: they wait while
 * their webhook is disabled (kept for when it is switched back on), but not for ever. With
 * `webhookId`, only that webhook's, enabled or not (it is being switched back on).
 *
 * Giving up a delivery moves its chain's head, so the webhooks are locked first, as the sender
 * locks them before recording outcomes (ordering/chain-heads.ts says why): the sweep skips a webhook whose
 * outcomes are being recorded right now (the next sweep has it), a webhook being switched on waits.
 */
export async function giveUpExpired(db: Executor, at: Date, webhookId?: string): Promise<{ id: string; webhook_id: string }[]> {
  return inTransaction(db, async (trx) => {
    const { rows: held } = await trx.raw<{ rows: { id: string }[] }>(
      `select w.id from webhooks w
        where (not w.enabled or ?::uuid is not null) and (?::uuid is null or w.id = ?::uuid)
          and exists (select 1 from webhook_deliveries d where d.webhook_id = w.id and d.status = 'pending' and d.retry_until < ?::timestamptz)
        order by w.id
        for no key update of w${webhookId ? '' : ' skip locked'}`,
      [webhookId ?? null, webhookId ?? null, webhookId ?? null, at] as never,
    );
    if (held.length === 0) return [];
    // SKIP LOCKED: a row held by anyone else (a delivery being written beside it) waits for the
    // next sweep rather than holding this one up.
    const { rows } = await trx.raw<{ rows: { id: string; webhook_id: string; ordering_key: string | null }[] }>(
      `with expired as (
         select d.id from webhook_deliveries d
          where d.webhook_id = any(?::uuid[]) and d.status = 'pending' and d.retry_until < ?::timestamptz
            and (d.leased_until is null or d.leased_until <= now())
          order by d.webhook_id, d.ordering_key nulls first, d.seq
          for update of d skip locked)
       update webhook_deliveries d
          set status = 'failed', ready = false, last_error = ?, next_attempt_at = now(), leased_until = null
         from expired where d.id = expired.id
        returning d.id, d.webhook_id, d.ordering_key`,
      [held.map((webhook) => webhook.id), at, EXPIRED_WHILE_DISABLED] as never,
    );
    await advanceChains(trx, chainsOf(rows));
    return rows.map(({ id, webhook_id }) => ({ id, webhook_id }));
  });
}

export const EXPIRED_WHILE_DISABLED = 'given up: its retry window closed while the webhook was disabled';

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
export async function requeueDelivery(db: Database, webhookId: string, id: string, retryUntil: Date): Promise<DeliveryRow | undefined> {
  return db.transaction(async (trx) => {
    // It moves its chain's head: the webhook is locked first, as the sender locks it before
    // recording (ordering/chain-heads.ts), so the chain is read once a recording beside it has committed.
    await lockWebhooks(trx, [webhookId]);
    const [row] = await trx<DeliveryRow>('webhook_deliveries')
      .where({ webhook_id: webhookId, id })
      .update({ status: 'pending', next_attempt_at: new Date(), retry_until: retryUntil, ready: true } as Partial<DeliveryRow>)
      .returning('*');
    // Without a key it is ready as it is; in a chain, the lowest pending delivery is the head.
    if (row) await advanceChains(trx, chainsOf([row]));
    return row;
  });
}
