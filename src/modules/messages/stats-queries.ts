// The counts the dashboard (stats module) shows of the account's SMS, each one statement on an
// index of this module's tables.
import type { Executor } from '../../storage/database.ts';
import type { SmsStatus } from './status.ts';

/** SMS created since `since`, counted by internal status (index sms_account_status_created). */
export async function countSmsByStatus(db: Executor, accountId: string, since: Date): Promise<Map<SmsStatus, number>> {
  const rows: { status: SmsStatus; n: number }[] = await db('sms')
    .where({ account_id: accountId })
    .where('created_at', '>=', since)
    .groupBy('status')
    .select('status', db.raw('count(*)::int as n'));
  return new Map(rows.map((row) => [row.status, Number(row.n)]));
}

export interface HourlyOutcome {
  /** Hours since the epoch (UTC). */
  hour: number;
  status: SmsStatus;
  n: number;
}

/**
 * The account's SMS that entered `statuses` since `since`, per UTC hour. The history has no
 * account column: the partial index sms_status_history_outcomes (migration 011) finds the last
 * day's outcomes of every account by time, and each is joined to its SMS for the account.
 * The status list must stay the index's own for the planner to use it.
 */
export async function countOutcomesPerHour(db: Executor, accountId: string, since: Date, statuses: readonly SmsStatus[]): Promise<HourlyOutcome[]> {
  const rows: HourlyOutcome[] = await db('sms_status_history as h')
    .join('sms as s', 's.id', 'h.sms_id')
    .where('s.account_id', accountId)
    .whereIn('h.status', statuses)
    .where('h.created_at', '>=', since)
    .groupByRaw('1, 2')
    .select(db.raw('floor(extract(epoch from h.created_at) / 3600)::int as hour'), 'h.status', db.raw('count(*)::int as n'));
  return rows.map((row) => ({ hour: Number(row.hour), status: row.status, n: Number(row.n) }));
}
