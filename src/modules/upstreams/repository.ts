// The upstreams module's own tables: upstreams, account_routes, upstream_month_usage,
// upstream_submissions.
import type { Executor } from '../../storage/database.ts';
import type { PrefixPrice, RouteRule, UpstreamRow, UpstreamWithUsage } from './types.ts';

export type UpstreamInsert = Omit<UpstreamRow, 'created_at' | 'updated_at'> & { at: Date };
export type UpstreamPatch = Partial<Pick<UpstreamRow, 'name' | 'settings' | 'secret_encrypted' | 'enabled' | 'price_per_segment' | 'monthly_budget'>> & {
  prefix_prices?: PrefixPrice[];
};

/** The calendar month (UTC) usage is counted in: "2026-11". */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

const WITH_USAGE = (month: string) => [
  `u.*, coalesce(m.segments, 0) as month_segments, coalesce(m.spent, 0) as month_spent`,
  `left join upstream_month_usage m on m.upstream_id = u.id and m.month = '${month.replace(/[^0-9-]/g, '')}'`,
];

export async function insertUpstream(db: Executor, row: UpstreamInsert): Promise<UpstreamRow> {
  const { at, prefix_prices, settings, ...rest } = row;
  const [inserted] = await db('upstreams')
    .insert({ ...rest, settings: JSON.stringify(settings), prefix_prices: JSON.stringify(prefix_prices), created_at: at, updated_at: at })
    .returning('*');
  return inserted as UpstreamRow;
}

export async function findUpstream(db: Executor, accountId: string, id: string, month: string): Promise<UpstreamWithUsage | undefined> {
  const [columns, join] = WITH_USAGE(month);
  const { rows } = await db.raw<{ rows: UpstreamWithUsage[] }>(`select ${columns} from upstreams u ${join} where u.account_id = ? and u.id = ?`, [accountId, id]);
  return rows[0];
}

/** Any account's upstream, for the links a node keeps open and the callbacks that name it. */
export async function findAnyUpstream(db: Executor, id: string): Promise<UpstreamRow | undefined> {
  return db<UpstreamRow>('upstreams').where({ id }).first();
}

export async function listUpstreams(db: Executor, accountId: string, month: string): Promise<UpstreamWithUsage[]> {
  const [columns, join] = WITH_USAGE(month);
  const { rows } = await db.raw<{ rows: UpstreamWithUsage[] }>(`select ${columns} from upstreams u ${join} where u.account_id = ? order by u.created_at, u.id`, [accountId]);
  return rows;
}

/** Every enabled upstream of every account: the links a node opens at start. */
export async function enabledUpstreams(db: Executor): Promise<UpstreamRow[]> {
  return db<UpstreamRow>('upstreams').where({ enabled: true }).orderBy('created_at');
}

export async function updateUpstream(db: Executor, accountId: string, id: string, patch: UpstreamPatch, at: Date): Promise<boolean> {
  const { settings, prefix_prices, ...rest } = patch;
  const changed: unknown[] = await db('upstreams')
    .where({ account_id: accountId, id })
    .update(
      {
        ...rest,
        ...(settings ? { settings: JSON.stringify(settings) } : {}),
        ...(prefix_prices ? { prefix_prices: JSON.stringify(prefix_prices) } : {}),
        updated_at: at,
      },
      ['id'],
    );
  return changed.length > 0;
}

export async function deleteUpstream(db: Executor, accountId: string, id: string): Promise<boolean> {
  return (await db('upstreams').where({ account_id: accountId, id }).delete().returning('id')).length > 0;
}

export async function findRoutes(db: Executor, accountId: string): Promise<{ rules: RouteRule[]; updated_at: Date } | undefined> {
  return db<{ account_id: string; rules: RouteRule[]; updated_at: Date }>('account_routes').where({ account_id: accountId }).first('rules', 'updated_at');
}

/** Every account's routes: what a node routes by, read at start and again when an account's change. */
export async function allRoutes(db: Executor): Promise<{ account_id: string; rules: RouteRule[] }[]> {
  return db('account_routes').select('account_id', 'rules');
}

export async function saveRoutes(db: Executor, accountId: string, rules: RouteRule[], at: Date): Promise<void> {
  await db.raw(
    `insert into account_routes (account_id, rules, updated_at) values (?, ?::jsonb, ?)
     on conflict (account_id) do update set rules = excluded.rules, updated_at = excluded.updated_at`,
    [accountId, JSON.stringify(rules), at],
  );
}

export async function deleteRoutes(db: Executor, accountId: string): Promise<void> {
  await db('account_routes').where({ account_id: accountId }).delete();
}

/** Counts what an upstream took this month, and answers the month's spend after it. */
export async function addUsage(db: Executor, upstreamId: string, month: string, segments: number, cost: number): Promise<number> {
  const { rows } = await db.raw<{ rows: { spent: string }[] }>(
    `insert into upstream_month_usage (upstream_id, month, segments, spent) values (?, ?, ?, ?)
     on conflict (upstream_id, month) do update set segments = upstream_month_usage.segments + excluded.segments,
                                                    spent = upstream_month_usage.spent + excluded.spent
     returning spent`,
    [upstreamId, month, segments, cost],
  );
  return Number(rows[0]?.spent ?? 0);
}

/** This month's spend of each of these upstreams (absent: nothing spent). */
export async function monthSpend(db: Executor, upstreamIds: string[], month: string): Promise<Map<string, number>> {
  if (upstreamIds.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: { upstream_id: string; spent: string }[] }>(
    `select upstream_id, spent from upstream_month_usage where upstream_id = any(?::uuid[]) and month = ?`,
    [upstreamIds, month],
  );
  return new Map(rows.map((row) => [row.upstream_id, Number(row.spent)]));
}

/** What one accepted submission was charged: its segments at the upstream's price of the moment. */
export interface Charge {
  segments: number;
  pricePerSegment: number;
}

/**
 * What a provider named each part of an SMS it took, with what each part cost then: a receipt
 * finds its SMS by one of them, and the account's reports sum the costs, which a later change of
 * price leaves as they were. The segments are spread over the ids (one each for SMPP parts; all of
 * them on a Twilio-compatible provider's one id).
 */
export async function recordSubmission(db: Executor, upstreamId: string, smsId: string, providerIds: string[], charge: Charge, at: Date): Promise<void> {
  if (providerIds.length === 0) return;
  const share = Math.floor(charge.segments / providerIds.length);
  const rest = charge.segments % providerIds.length;
  await db('upstream_submissions')
    .insert(
      providerIds.map((providerId, index) => {
        const segments = share + (index < rest ? 1 : 0);
        return { upstream_id: upstreamId, provider_id: providerId, sms_id: smsId, created_at: at, segments, cost: roundCost(segments * charge.pricePerSegment) };
      }),
    )
    .onConflict(['upstream_id', 'provider_id'])
    .ignore();
}

/** numeric(14, 6): a price times segments without a float's noise. */
function roundCost(cost: number): number {
  return Math.round(cost * 1e6) / 1e6;
}

export async function smsOfSubmission(db: Executor, upstreamId: string, providerId: string): Promise<string | undefined> {
  const { rows } = await db.raw<{ rows: { sms_id: string }[] }>(`select sms_id from upstream_submissions where upstream_id = ? and provider_id = ?`, [upstreamId, providerId]);
  return rows[0]?.sms_id;
}

/**
 * Records a part's final receipt (its first: one sent again, or a later different one, changes
 * nothing) and answers what the part keeps (`kept`, that first) and the final receipts of every
 * part of that SMS through the upstream, this one's included (null for a part with none yet);
 * `kept` null when no part has the id. Run under the SMS's lock, so that two parts' receipts are
 * counted one after the other.
 */
export async function recordPartOutcome(
  db: Executor,
  upstreamId: string,
  providerId: string,
  outcome: string,
): Promise<{ kept: string | null; parts: (string | null)[] }> {
  const { rows: updated } = await db.raw<{ rows: { sms_id: string; outcome: string }[] }>(
    `update upstream_submissions set outcome = coalesce(outcome, ?) where upstream_id = ? and provider_id = ? returning sms_id, outcome`,
    [outcome, upstreamId, providerId],
  );
  const part = updated[0];
  if (!part) return { kept: null, parts: [] };
  const { rows } = await db.raw<{ rows: { outcome: string | null }[] }>(`select outcome from upstream_submissions where upstream_id = ? and sms_id = ?`, [upstreamId, part.sms_id]);
  return { kept: part.outcome, parts: rows.map((row) => row.outcome) };
}
