// The attempts of a send (docs/delivery.md, "Retrying failed sends"): one row per attempt in
// sms_attempts, written with the reports that open and end it, and what a retry needs to know to
// go somewhere that has not failed already.
import type { Executor } from '../../storage/database.ts';
import { columnsOf } from '../../storage/unnest-columns.ts';
import type { SimCard } from '../devices/types.ts';
import { otherSendingDeviceExists } from '../devices/shared-queries.ts';

export type AttemptResult = 'sending' | 'sent' | 'failed';

/** One attempt as a batch of reports leaves it (several reports of one attempt merge into one). */
export interface AttemptWrite {
  smsId: string;
  attempt: number;
  deviceId: string | null;
  simSlot: number | null;
  at: Date;
  result: AttemptResult;
  errorCode: string | null;
  error: string | null;
  retried: boolean;
}

/** How an attempt ended, as the breakers and the dispatcher hear it ("sms.attempts_ended"). */
export interface AttemptEnded {
  smsId: string;
  accountId: string;
  deviceId: string;
  simSlot: number | null;
  attempt: number;
  outcome: 'sent' | 'failed';
  errorCode: string | null;
  /** The SMS waits for another attempt (it left the device's window without a final status). */
  retried: boolean;
}

export interface AttemptRow {
  sms_id: string;
  attempt: number;
  device_id: string | null;
  /** The upstream that tried it, when a route handed it to one (then no device did). */
  upstream_id: string | null;
  sim_slot: number | null;
  started_at: Date;
  ended_at: Date | null;
  result: AttemptResult;
  error_code: string | null;
  error: string | null;
  retried: boolean;
}

/**
 * Ends, as failed with `reason`, the attempt still sending of each of these SMS: the gateway ended
 * them itself while a phone held them (their device was deleted), so no report will end it.
 */
export async function endOpenAttempts(db: Executor, smsIds: string[], at: Date, reason: string): Promise<void> {
  if (smsIds.length === 0) return;
  await db('sms_attempts').whereIn('sms_id', smsIds).andWhere({ result: 'sending' }).update({ result: 'failed', ended_at: at, error: reason });
}

/**
 * Opens, updates and ends attempts, in one statement: a row is made at the first report of its
 * attempt, and later reports fill in what they add (the SIM, the end, the error).
 */
export async function writeAttempts(db: Executor, writes: AttemptWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { sql, bindings } = attemptsUpsert(writes);
  await db.raw(sql, bindings as never);
}

/** writeAttempts' statement, for a caller that runs it as part of one of its own (a data-modifying WITH). */
export function attemptsUpsert(writes: AttemptWrite[]): { sql: string; bindings: unknown[] } {
  const ended = (w: AttemptWrite) => (w.result === 'sending' ? null : w.at);
  return {
    sql: `insert into sms_attempts (sms_id, attempt, device_id, sim_slot, started_at, ended_at, result, error_code, error, retried)
     select * from unnest(?::uuid[], ?::int2[], ?::uuid[], ?::int2[], ?::timestamptz[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::bool[])
     on conflict (sms_id, attempt) do update set
       device_id = coalesce(sms_attempts.device_id, excluded.device_id),
       sim_slot = coalesce(excluded.sim_slot, sms_attempts.sim_slot),
       ended_at = coalesce(sms_attempts.ended_at, excluded.ended_at),
       result = case when sms_attempts.result = 'sending' then excluded.result else sms_attempts.result end,
       error_code = coalesce(excluded.error_code, sms_attempts.error_code),
       error = coalesce(excluded.error, sms_attempts.error),
       retried = sms_attempts.retried or excluded.retried`,
    bindings: [
      ...columnsOf(writes, ['smsId', 'attempt', 'deviceId', 'simSlot', 'at']),
      writes.map(ended),
      ...columnsOf(writes, ['result', 'errorCode', 'error', 'retried']),
    ],
  };
}

/** The SIM slots of `deviceId` that failed this SMS in an earlier attempt. */
export async function failedSims(db: Executor, smsId: string, deviceId: string): Promise<number[]> {
  const { rows } = await db.raw<{ rows: { sim_slot: number }[] }>(
    `select distinct sim_slot from sms_attempts where sms_id = ? and device_id = ? and result = 'failed' and sim_slot is not null`,
    [smsId, deviceId],
  );
  return rows.map((row) => Number(row.sim_slot));
}

/** What deciding a retry needs to know of the phone that failed it. */
export interface RetryFacts {
  /** SIM slots of the device that failed this SMS (this attempt's included, when known). */
  failed: number[];
  /** SIM slots of the device paused by the SIM breaker now, or degraded with fault send. */
  paused: number[];
  /** Another live device of the account may send. */
  otherDevice: boolean;
}

export async function retryFacts(db: Executor, sms: { id: string; account_id: string }, deviceId: string, now: Date): Promise<RetryFacts> {
  const { rows } = await db.raw<{ rows: { failed: number[] | null; paused: number[] | null; other: boolean }[] }>(
    `select (select array_agg(distinct sim_slot) from sms_attempts
              where sms_id = ? and device_id = ? and result = 'failed' and sim_slot is not null) as failed,
            (select array_agg(sim_slot) from sim_health where device_id = ?
                and (paused_until > ? or (degraded_since is not null and degraded_fault = 'send'))) as paused,
            ? as other`,
    [sms.id, deviceId, deviceId, now, otherSendingDeviceExists(db, sms.account_id, deviceId, db.raw('(select device_group from sms where id = ?)', [sms.id]))],
  );
  const row = rows[0];
  return { failed: (row?.failed ?? []).map(Number), paused: (row?.paused ?? []).map(Number), otherDevice: Boolean(row?.other) };
}

/** SIM slots of the device that a retry may use: reported, not failed for this SMS, not paused or degraded. */
export function untriedSims(simCards: SimCard[], avoid: Iterable<number>): number[] {
  const skip = new Set(avoid);
  return simCards.map((card) => card.index).filter((slot) => !skip.has(slot));
}

/** A failed send going round again: back to waiting, handed to no one until retry_at. */
export interface RetryWrite {
  smsId: string;
  /** The device it waits for (its client named it); null: the pool. */
  deviceId: string | null;
  attempt: number;
  retryAt: Date;
  retrySimSlot: number | null;
  avoidDeviceId: string | null;
  at: Date;
}

export async function scheduleRetries(db: Executor, retries: RetryWrite[]): Promise<void> {
  if (retries.length === 0) return;
  await db.raw(
    `update sms set status = 'pending', device_id = v.device_id, dispatched_at = null, attempt = v.attempt,
                    retry_at = v.retry_at, retry_sim_slot = v.retry_sim_slot, avoid_device_id = v.avoid_device_id, updated_at = v.at
       from (select unnest(?::uuid[]) as id, unnest(?::uuid[]) as device_id, unnest(?::int2[]) as attempt,
                    unnest(?::timestamptz[]) as retry_at, unnest(?::int2[]) as retry_sim_slot,
                    unnest(?::uuid[]) as avoid_device_id, unnest(?::timestamptz[]) as at) v
      where sms.id = v.id`,
    columnsOf(retries, ['smsId', 'deviceId', 'attempt', 'retryAt', 'retrySimSlot', 'avoidDeviceId', 'at']) as never,
  );
}

/** An SMS's attempts, first first; undefined when the account has no such SMS. */
export async function attemptsOf(db: Executor, accountId: string, smsId: string): Promise<AttemptRow[] | undefined> {
  const sms = await db('sms').where({ id: smsId, account_id: accountId }).first('id');
  if (!sms) return undefined;
  return db<AttemptRow>('sms_attempts').where({ sms_id: smsId }).orderBy('attempt');
}
