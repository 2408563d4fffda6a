// The webhook backlog as /metrics shows it, read from webhook_deliveries when Prometheus scrapes.
import type { Executor } from '../../storage/database.ts';
import type { Sample } from '../../common/metrics.ts';

/** Deliveries not yet delivered nor given up: due now, scheduled later, or held. */
export async function webhookBacklog(db: Executor): Promise<Sample[]> {
  // Held: waiting for their webhook to be switched back on (parked, see ordering/parking.ts).
  const { rows } = await db.raw<{ rows: { due: number; scheduled: number; held: number }[] }>(
    `select count(*) filter (where next_attempt_at <= now())::int as due,
            count(*) filter (where next_attempt_at > now() and next_attempt_at <> 'infinity')::int as scheduled,
            count(*) filter (where next_attempt_at = 'infinity')::int as held
       from webhook_deliveries where status = 'pending'`,
  );
  return [
    { labels: { state: 'due' }, value: rows[0]?.due ?? 0 },
    { labels: { state: 'scheduled' }, value: rows[0]?.scheduled ?? 0 },
    { labels: { state: 'held' }, value: rows[0]?.held ?? 0 },
  ];
}

/** How long the longest-waiting due delivery has been due (0 when none is). */
export async function oldestDueWebhook(db: Executor): Promise<Sample[]> {
  // The deliveries that could go now (a delivery waiting behind its SMS's earlier one is not one):
  // through the partial index webhook_deliveries_ready, one probe.
  const { rows } = await db.raw<{ rows: { seconds: number | null }[] }>(
    `select extract(epoch from now() - min(next_attempt_at))::float8 as seconds
       from webhook_deliveries where status = 'pending' and ready and next_attempt_at <= now()`,
  );
  return [{ labels: {}, value: Math.max(0, Number(rows[0]?.seconds ?? 0)) }];
}
