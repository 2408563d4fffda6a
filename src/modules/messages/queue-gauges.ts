// The SMS queue as /metrics shows it, read from the sms rows when Prometheus scrapes: the rows
// are the queue, so the figures stay right across restarts and with several gateway processes.
import type { Executor } from '../../storage/database.ts';
import type { Sample } from '../../common/metrics.ts';

/**
 * Devices named in sms_in_flight, the busiest first. A fleet of thousands would otherwise add a
 * series per phone to every scrape; the rest are summed under device="other".
 */
export const IN_FLIGHT_DEVICE_SERIES = 50;

/** SMS no phone has taken yet: queue="pool" (any device of the account) or "device" (one named). */
export async function waitingSms(db: Executor): Promise<Sample[]> {
  // Two counts, each over its own partial index (sms_pool, sms_named_waiting).
  const [pool, named] = await Promise.all([
    db('sms').where({ status: 'pending' }).whereNull('dispatched_at').whereNull('device_id').count<{ n: number }[]>({ n: '*' }),
    db('sms').where({ status: 'pending' }).whereNull('dispatched_at').whereNotNull('device_id').count<{ n: number }[]>({ n: '*' }),
  ]);
  return [
    { labels: { queue: 'pool' }, value: Number(pool[0]?.n ?? 0) },
    { labels: { queue: 'device' }, value: Number(named[0]?.n ?? 0) },
  ];
}

/** Tasks handed to a device and not yet sent or failed, per device. */
export async function inFlightSms(db: Executor): Promise<Sample[]> {
  const { rows } = await db.raw<{ rows: { device_id: string; n: number }[] }>(
    `select device_id, count(*)::int as n from sms
      where dispatched_at is not null and status in ('pending','processing') and device_id is not null
      group by device_id order by n desc, device_id`,
  );
  const samples: Sample[] = rows.slice(0, IN_FLIGHT_DEVICE_SERIES).map((row) => ({ labels: { device: row.device_id }, value: row.n }));
  const rest = rows.slice(IN_FLIGHT_DEVICE_SERIES).reduce((sum, row) => sum + row.n, 0);
  if (rows.length > IN_FLIGHT_DEVICE_SERIES) samples.push({ labels: { device: 'other' }, value: rest });
  return samples;
}
