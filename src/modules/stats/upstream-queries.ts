// What the upstream report reads: the account's SMS created in a range that went through each
// upstream (their attempts there and what became of them), what each cost as recorded when it was
// handed over, the same SMS figures for the phones, and the upstreams' names. Reads only, each one
// statement over the range of sms_account_created joined by SMS id; none runs on the send path.
// Canary SMS are left out, as in the other reports.
import type { Executor } from '../../storage/database.ts';
import { ENDED_BY_GATEWAY } from '../messages/status.ts';

export interface RouteFigures {
  /** SMS handed to it: for an upstream, those it answered (accepted or refused) or never answered; for the phones, those a phone took and that ended. */
  handedOver: number;
  /** Of those, SMS it took: the upstream accepted it, the phone sent it. */
  sent: number;
  failedSend: number;
  delivered: number;
  undelivered: number;
  failedDelivery: number;
}

export interface UpstreamFigures extends RouteFigures {
  upstreamId: string;
}

/**
 * Per upstream, the account's SMS created in [from, to) handed to it: one row per upstream with
 * any, from the attempts through it (sms_attempts.upstream_id). An SMS counts as sent when an
 * attempt through it was accepted, and its delivery figures are its status now.
 */
export async function countSmsPerUpstream(db: Executor, accountId: string, from: Date, to: Date): Promise<UpstreamFigures[]> {
  const { rows } = await db.raw<{ rows: (Record<'handed_over' | 'sent' | 'delivered' | 'undelivered' | 'failed_delivery', number> & { upstream_id: string })[] }>(
    `with handed as (
       select a.upstream_id, s.id, s.status, bool_or(a.result = 'sent') as accepted
         from sms s join sms_attempts a on a.sms_id = s.id
        where s.account_id = ? and s.created_at >= ? and s.created_at < ? and s.kind <> 'canary' and a.upstream_id is not null
        group by a.upstream_id, s.id, s.status
     )
     select upstream_id, count(*)::int as handed_over,
            count(*) filter (where accepted)::int as sent,
            count(*) filter (where accepted and status = 'delivered')::int as delivered,
            count(*) filter (where accepted and status = 'undelivered')::int as undelivered,
            count(*) filter (where accepted and status = 'failed_delivery')::int as failed_delivery
       from handed
      group by upstream_id`,
    [accountId, from, to],
  );
  return rows.map((row) => ({
    upstreamId: row.upstream_id,
    handedOver: Number(row.handed_over),
    sent: Number(row.sent),
    failedSend: Number(row.handed_over) - Number(row.sent),
    delivered: Number(row.delivered),
    undelivered: Number(row.undelivered),
    failedDelivery: Number(row.failed_delivery),
  }));
}

export interface UpstreamCost {
  upstreamId: string;
  segments: number;
  /** The sum of what each SMS was charged when the upstream took it. */
  cost: number;
}

/**
 * Per upstream, the segments it took of the account's SMS created in [from, to) and what they
 * cost, as recorded per part at the moment they were handed over. A part recorded before the
 * cost was (migration 050) counts one segment and no cost.
 */
export async function sumCostPerUpstream(db: Executor, accountId: string, from: Date, to: Date): Promise<UpstreamCost[]> {
  const { rows } = await db.raw<{ rows: { upstream_id: string; segments: number; cost: string | number }[] }>(
    `select u.upstream_id, sum(coalesce(u.segments, 1))::int as segments, coalesce(sum(u.cost), 0) as cost
       from sms s join upstream_submissions u on u.sms_id = s.id
      where s.account_id = ? and s.created_at >= ? and s.created_at < ? and s.kind <> 'canary'
      group by u.upstream_id`,
    [accountId, from, to],
  );
  return rows.map((row) => ({ upstreamId: row.upstream_id, segments: Number(row.segments), cost: Number(row.cost) }));
}

/**
 * The account's SMS created in [from, to) that a phone took and that ended, on the device report's
 * terms: a failed_send the gateway decided (cancelled, expired, device switched off or deleted,
 * recipient opted out) is no failure of the phones' and is not counted.
 */
export async function countSmsOfPhones(db: Executor, accountId: string, from: Date, to: Date): Promise<RouteFigures> {
  const { rows } = await db.raw<{ rows: Record<'handed_over' | 'sent' | 'failed_send' | 'delivered' | 'undelivered' | 'failed_delivery', number>[] }>(
    `select count(*)::int as handed_over,
            count(*) filter (where status <> 'failed_send')::int as sent,
            count(*) filter (where status = 'failed_send')::int as failed_send,
            count(*) filter (where status = 'delivered')::int as delivered,
            count(*) filter (where status = 'undelivered')::int as undelivered,
            count(*) filter (where status = 'failed_delivery')::int as failed_delivery
       from sms
      where account_id = ? and created_at >= ? and created_at < ?
        and device_id is not null and dispatched_at is not null and kind <> 'canary'
        and status in ('sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery')
        and not (status = 'failed_send' and reason = any(?::text[]))`,
    [accountId, from, to, [...ENDED_BY_GATEWAY]],
  );
  const row = rows[0]!;
  return {
    handedOver: Number(row.handed_over),
    sent: Number(row.sent),
    failedSend: Number(row.failed_send),
    delivered: Number(row.delivered),
    undelivered: Number(row.undelivered),
    failedDelivery: Number(row.failed_delivery),
  };
}

export interface NamedUpstream {
  id: string;
  name: string;
  kind: string;
}

/** The account's upstreams, oldest first: every one is listed, with or without figures. */
export async function upstreamsToReport(db: Executor, accountId: string): Promise<NamedUpstream[]> {
  const { rows } = await db.raw<{ rows: NamedUpstream[] }>(`select id, name, kind from upstreams where account_id = ? order by created_at, id`, [accountId]);
  return rows;
}
