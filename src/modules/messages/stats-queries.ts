// The counts the dashboard and the device report (stats module) show of the account's SMS, each
// one statement on an index of this module's tables. Canary SMS (kind 'canary', the fleet's own
// test messages) are left out of every count here: they are reported as canary figures only.
import type { Executor } from '../../storage/database.ts';
import { ENDED_BY_GATEWAY, type SmsStatus } from './status.ts';

/** SMS created since `since`, counted by internal status (index sms_account_status_created). */
export async function countSmsByStatus(db: Executor, accountId: string, since: Date): Promise<Map<SmsStatus, number>> {
  const rows: { status: SmsStatus; n: number }[] = await db('sms')
    .where({ account_id: accountId })
    .where('created_at', '>=', since)
    .whereNot('kind', 'canary')
    .groupBy('status')
    .select('status', db.raw('count(*)::int as n'));
  return new Map(rows.map((row) => [row.status, Number(row.n)]));
}

export interface HourlyOutcome {
  /** Hours since the epoch, counted from `hourStartsAtMs` past each UTC hour. */
  hour: number;
  status: SmsStatus;
  n: number;
}

/**
 * The account's SMS that entered `statuses` since `since`, per hour; an hour begins
 * `hourStartsAtMs` past a UTC hour (a zone half an hour off UTC reads its own hours). The history has no
 * account column: the partial index sms_status_history_outcomes (migration 011) finds the last
 * day's outcomes of every account by time, and each is joined to its SMS for the account.
 * The status list must stay the index's own for the planner to use it.
 */
export async function countOutcomesPerHour(db: Executor, accountId: string, since: Date, statuses: readonly SmsStatus[], hourStartsAtMs = 0): Promise<HourlyOutcome[]> {
  const rows: HourlyOutcome[] = await db('sms_status_history as h')
    .join('sms as s', 's.id', 'h.sms_id')
    .where('s.account_id', accountId)
    .whereNot('s.kind', 'canary')
    .whereIn('h.status', statuses)
    .where('h.created_at', '>=', since)
    .groupByRaw('1, 2')
    .select(db.raw('floor((extract(epoch from h.created_at) - ?) / 3600)::int as hour', [hourStartsAtMs / 1000]), 'h.status', db.raw('count(*)::int as n'));
  return rows.map((row) => ({ hour: Number(row.hour), status: row.status, n: Number(row.n) }));
}

/** What one device, or one of its SIMs, did with the SMS it was handed (canary SMS left out). */
export interface HandledSmsFigures {
  deviceId: string;
  /** Null on the device's own row (all its SIMs); else the SIM, itself null when no slot was ever known. */
  simSlot: number | null;
  /** True on the device's own row. */
  wholeDevice: boolean;
  /** SMS its phone sent: sent, delivered, undelivered, or sent and then failed_delivery. */
  sent: number;
  failedSend: number;
  delivered: number;
  undelivered: number;
  /** Milliseconds from hand-out to the phone's report of sent, and to the delivery report. */
  toSentMedianMs: number | null;
  toSentP95Ms: number | null;
  toDeliveredMedianMs: number | null;
  toDeliveredP95Ms: number | null;
}

/**
 * Per device and per SIM, and per device over all its SIMs (grouping sets: percentiles do not add
 * up), the account's SMS created in [from, to) that were handed to a phone and ended. One
 * statement over the range of sms_account_created; each SMS's sent and delivered times come from
 * its own history through sms_status_history's (sms_id, id) index. The SIM is the one the phone
 * said it used, else the one asked for. dispatched_at is the last hand-out, so a send retried
 * after a failure is timed from the hand-out that worked. A failed_send the gateway decided
 * (cancelled, expired, its device switched off or deleted, its recipient opted out) is no failure
 * of the phone's and is not counted.
 */
export async function countHandledSmsPerSim(db: Executor, accountId: string, from: Date, to: Date): Promise<HandledSmsFigures[]> {
  const { rows } = await db.raw<{ rows: HandledRow[] }>(
    `with handled as (
       select s.id, s.device_id, coalesce(s.sent_sim_slot, s.retry_sim_slot, s.sim_slot) as sim_slot, s.status,
              extract(epoch from (select min(h.created_at) from sms_status_history h where h.sms_id = s.id and h.status = 'sent') - s.dispatched_at) * 1000 as to_sent_ms,
              extract(epoch from (select min(h.created_at) from sms_status_history h where h.sms_id = s.id and h.status = 'delivered') - s.dispatched_at) * 1000 as to_delivered_ms
         from sms s
        where s.account_id = ? and s.created_at >= ? and s.created_at < ?
          and s.device_id is not null and s.dispatched_at is not null and s.kind <> 'canary'
          and s.status in ('sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery')
          and not (s.status = 'failed_send' and s.reason = any(?::text[]))
     )
     select device_id, sim_slot, grouping(sim_slot) = 1 as whole_device,
            count(*) filter (where status <> 'failed_send')::int as sent,
            count(*) filter (where status = 'failed_send')::int as failed_send,
            count(*) filter (where status = 'delivered')::int as delivered,
            count(*) filter (where status = 'undelivered')::int as undelivered,
            percentile_cont(0.5) within group (order by to_sent_ms) as to_sent_median,
            percentile_cont(0.95) within group (order by to_sent_ms) as to_sent_p95,
            percentile_cont(0.5) within group (order by to_delivered_ms) as to_delivered_median,
            percentile_cont(0.95) within group (order by to_delivered_ms) as to_delivered_p95
       from handled
      group by grouping sets ((device_id, sim_slot), (device_id))`,
    [accountId, from, to, [...ENDED_BY_GATEWAY]],
  );
  const ms = (value: number | string | null) => (value === null ? null : Math.max(0, Math.round(Number(value))));
  return rows.map((row) => ({
    deviceId: row.device_id,
    simSlot: row.whole_device ? null : row.sim_slot,
    wholeDevice: row.whole_device,
    sent: Number(row.sent),
    failedSend: Number(row.failed_send),
    delivered: Number(row.delivered),
    undelivered: Number(row.undelivered),
    toSentMedianMs: ms(row.to_sent_median),
    toSentP95Ms: ms(row.to_sent_p95),
    toDeliveredMedianMs: ms(row.to_delivered_median),
    toDeliveredP95Ms: ms(row.to_delivered_p95),
  }));
}

interface HandledRow {
  device_id: string;
  sim_slot: number | null;
  whole_device: boolean;
  sent: number;
  failed_send: number;
  delivered: number;
  undelivered: number;
  to_sent_median: number | string | null;
  to_sent_p95: number | string | null;
  to_delivered_median: number | string | null;
  to_delivered_p95: number | string | null;
}
