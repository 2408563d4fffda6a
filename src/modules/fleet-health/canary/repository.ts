// The canary rounds' tables (migration 042): each account's settings and schedule, and one probe
// per canary SMS. Every statement here is one round trip on an index of its own.
import type { Executor } from '../../../storage/database.ts';
import { columnsOf } from '../../../storage/unnest-columns.ts';
import type { CanaryProbeRow, CanarySettings } from './types.ts';

export type { CanaryProbeRow, CanarySettings };

export async function findSettings(db: Executor, accountId: string): Promise<CanarySettings | undefined> {
  return db<CanarySettings>('canary_settings').where({ account_id: accountId }).first();
}

/** Writes the settings given, the others kept (or their defaults on the first write). */
export async function saveSettings(
  db: Executor,
  accountId: string,
  patch: { enabled?: boolean | undefined; interval_minutes?: number | undefined; timeout_seconds?: number | undefined },
  at: Date,
): Promise<void> {
  await db.raw(
    `insert into canary_settings (account_id, enabled, interval_minutes, timeout_seconds, updated_at)
     values (?, coalesce(?::boolean, false), coalesce(?::int, 60), coalesce(?::int, 300), ?)
     on conflict (account_id) do update set
       enabled = coalesce(?::boolean, canary_settings.enabled),
       interval_minutes = coalesce(?::int, canary_settings.interval_minutes),
       timeout_seconds = coalesce(?::int, canary_settings.timeout_seconds),
       updated_at = excluded.updated_at`,
    [
      accountId, patch.enabled ?? null, patch.interval_minutes ?? null, patch.timeout_seconds ?? null, at,
      patch.enabled ?? null, patch.interval_minutes ?? null, patch.timeout_seconds ?? null,
    ],
  );
  // Switched on, or its interval changed: the next round is an interval from now; switched off: none.
  const reschedule = patch.enabled !== undefined || patch.interval_minutes !== undefined;
  await db.raw(
    `update canary_settings set next_round_at = case when not enabled then null
                                                     when ? then ?::timestamptz + interval_minutes * interval '1 minute'
                                                     else next_round_at end
      where account_id = ?`,
    [reschedule, at, accountId],
  );
}

/**
 * Counts a round about to start and answers its number (0 for the first) with the timeout its
 * probes get; the next scheduled round moves an interval on while rounds are on.
 */
export async function countRound(db: Executor, accountId: string, at: Date): Promise<{ round: number; timeoutSeconds: number }> {
  const { rows } = await db.raw<{ rows: { rounds_run: number; timeout_seconds: number }[] }>(
    `insert into canary_settings (account_id, rounds_run, last_round_at) values (?, 1, ?)
     on conflict (account_id) do update set rounds_run = canary_settings.rounds_run + 1, last_round_at = excluded.last_round_at,
       next_round_at = case when canary_settings.enabled then excluded.last_round_at + canary_settings.interval_minutes * interval '1 minute' end
     returning rounds_run, timeout_seconds`,
    [accountId, at],
  );
  const row = rows[0]!;
  return { round: Number(row.rounds_run) - 1, timeoutSeconds: Number(row.timeout_seconds) };
}

/**
 * Takes up to `limit` accounts whose round is due, moving each one's next round an interval on in
 * the same statement: another node's run skips the rows taken (skip locked) and finds them not due
 * once this commits. Nothing due costs one read of canary_settings_due.
 */
export async function claimDue(db: Executor, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { account_id: string }[] }>(
    `update canary_settings s set next_round_at = ?::timestamptz + s.interval_minutes * interval '1 minute'
      where s.account_id in (select account_id from canary_settings
                              where enabled and next_round_at <= ?
                              order by next_round_at limit ? for update skip locked)
      returning s.account_id`,
    [now, now, limit],
  );
  return rows.map((row) => row.account_id);
}

export async function insertProbes(db: Executor, probes: CanaryProbeRow[]): Promise<void> {
  if (probes.length === 0) return;
  await db.raw(
    `insert into canary_probes (id, account_id, round_id, round_number, sender_device_id, sender_sim, receiver_device_id,
                                receiver_sim, code, sms_id, created_at, deadline_at)
     select * from unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::int[], ?::uuid[], ?::int2[], ?::uuid[], ?::int2[], ?::text[], ?::uuid[],
                          ?::timestamptz[], ?::timestamptz[])`,
    columnsOf(probes, [
      'id', 'account_id', 'round_id', 'round_number', 'sender_device_id', 'sender_sim', 'receiver_device_id', 'receiver_sim', 'code',
      'sms_id', 'created_at', 'deadline_at',
    ]) as never,
  );
}

/** The account's newest probe with this code, locked (canary_probes_code); undefined when none. */
export async function lockProbeByCode(db: Executor, accountId: string, code: string): Promise<CanaryProbeRow | undefined> {
  const { rows } = await db.raw<{ rows: CanaryProbeRow[] }>(
    `select * from canary_probes where account_id = ? and code = ? order by created_at desc limit 1 for update`,
    [accountId, code],
  );
  return rows[0];
}

export async function passProbe(db: Executor, id: string, at: Date, roundTripMs: number): Promise<void> {
  await db.raw(`update canary_probes set result = 'passed', ended_at = ?, round_trip_ms = ? where id = ? and result = 'pending'`, [at, roundTripMs, id]);
}

export async function failProbe(db: Executor, id: string, at: Date, failure: string): Promise<void> {
  await db.raw(`update canary_probes set result = 'failed', ended_at = ?, failure = ? where id = ? and result = 'pending'`, [at, failure, id]);
}

/**
 * Serialises the ends of the account's probes until the transaction ends (its canary_settings row,
 * made when its first round was counted): the transaction that ends a round's last probe then sees
 * every other end committed, and judges the round.
 */
export async function lockAccount(db: Executor, accountId: string): Promise<void> {
  await db.raw(`select 1 from canary_settings where account_id = ? for update`, [accountId]);
}

/** Whether the round has probes under way (canary_probes_round_pending). */
export async function roundUnderWay(db: Executor, roundId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(`select 1 from canary_probes where round_id = ? and result = 'pending' limit 1`, [roundId]);
  return rows.length > 0;
}

/** The accounts of the pending probes of these canary SMS (canary_probes_sms). */
export async function accountsOfSms(db: Executor, smsIds: string[]): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { account_id: string }[] }>(
    `select distinct account_id from canary_probes where sms_id = any(?::uuid[]) and result = 'pending' order by account_id`,
    [smsIds],
  );
  return rows.map((row) => row.account_id);
}

/** Fails the account's pending probes of these canary SMS (canary_probes_sms); answers their rounds. */
export async function failProbesOfSms(db: Executor, accountId: string, smsIds: string[], at: Date, failure: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { round_id: string }[] }>(
    `update canary_probes set result = 'failed', ended_at = ?, failure = ?
      where sms_id = any(?::uuid[]) and account_id = ? and result = 'pending'
      returning round_id`,
    [at, failure, smsIds, accountId],
  );
  return [...new Set(rows.map((row) => row.round_id))];
}

/** Up to `limit` accounts with a pending probe past its deadline (canary_probes_deadline). */
export async function accountsOverdue(db: Executor, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { account_id: string }[] }>(
    `select distinct account_id from (select account_id from canary_probes where result = 'pending' and deadline_at <= ? order by deadline_at limit ?) o`,
    [now, limit],
  );
  return rows.map((row) => row.account_id);
}

/** Fails the account's pending probes past their deadline; answers their rounds. */
export async function failOverdue(db: Executor, accountId: string, now: Date): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { round_id: string }[] }>(
    `update canary_probes set result = 'failed', ended_at = ?, failure = 'timeout'
      where account_id = ? and result = 'pending' and deadline_at <= ?
      returning round_id`,
    [now, accountId, now],
  );
  return [...new Set(rows.map((row) => row.round_id))];
}
