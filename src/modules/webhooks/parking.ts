// The deliveries of a disabled webhook wait, kept for when it is switched back on (outbox.ts),
// but no claim may read them meanwhile: a receiver that was disabled during a burst would
// otherwise leave thousands of due rows that every claim reads past and skips. So they are
// parked: due at 'infinity', out of the claim's reach (it reads rows due by now), and due now
// again when the webhook is switched on.
// - A delivery written for a disabled webhook is parked as it is written (outbox.ts).
// - The sweep parks what became due on a disabled webhook since: deliveries that were waiting
//   for a retry, or in flight, when it was disabled, or written while it was being disabled.
// - Switching a webhook on makes its waiting deliveries due at once (WebhookService.update, with
//   resumeWaiting). A delivery parked by a sweep or a writer that read the webhook as disabled
//   just before it was switched on is found by the next sweep, which looks at the webhooks
//   changed in the last minute.
// Both sweeps start from the webhooks (few) and read each one's deliveries through the index of
// pending deliveries by webhook and time ("offset 0" keeps each probe apart whatever the
// statistics say): neither reads the held deliveries of webhooks it has nothing to do for.
import type { Executor } from '../../storage/database.ts';

export const PARKED = 'infinity';

/** Parks the due deliveries of disabled webhooks (not those in flight: their lease stands). */
export async function parkDisabled(db: Executor): Promise<number> {
  // SKIP LOCKED: a row someone holds (a delivery being written beside it) waits for the next sweep.
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `with due as (
       select d.id from webhooks w
        cross join lateral (
              select q.id from webhook_deliveries q
               where q.webhook_id = w.id and q.status = 'pending' and q.next_attempt_at <= now()
              offset 0) q
         join webhook_deliveries d on d.id = q.id
        where not w.enabled and d.status = 'pending' and (d.leased_until is null or d.leased_until <= now())
        for update of d skip locked)
     update webhook_deliveries d set next_attempt_at = '${PARKED}' from due where d.id = due.id
     returning 1`,
  );
  return rows.length;
}

/** Makes the parked deliveries of webhooks switched on in the last minute due now. */
export async function unparkRecentlyEnabled(db: Executor): Promise<number> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `with parked as (
       select d.id from webhooks w
        cross join lateral (
              select q.id from webhook_deliveries q
               where q.webhook_id = w.id and q.status = 'pending' and q.next_attempt_at = '${PARKED}'
              offset 0) q
         join webhook_deliveries d on d.id = q.id
        where w.enabled and w.updated_at > now() - interval '1 minute' and d.status = 'pending'
        for update of d skip locked)
     update webhook_deliveries d set next_attempt_at = now() from parked where d.id = parked.id
     returning 1`,
  );
  return rows.length;
}

/** Whether a delivery's next attempt is a time at all (a parked one waits for its webhook instead). */
export function isScheduled(nextAttemptAt: Date | number): boolean {
  return Number.isFinite(+nextAttemptAt);
}
