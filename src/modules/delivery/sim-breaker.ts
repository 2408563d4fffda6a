// The SIM breaker, beside the device's (circuit-breaker.ts). One SIM of a phone can fail while the
// other works (no credit on one, no network for one operator): after `failures` failed sends in a
// row with the same retryable error_code, the SIM is paused for `pauseMs`. No task names it
// meanwhile (dispatcher.ts picks another SIM of the phone); a phone whose every SIM is paused is
// paused itself, so its waiting pool tasks go to other phones. A successful send from the SIM
// resets its count.
//
// The state is a row per device and SIM slot in PostgreSQL (sim_health): every gateway node reads
// it when a device claims work, so a SIM paused on one node is avoided on all of them.
import type { Executor } from '../../storage/database.ts';
import type { AttemptEnded } from './attempts.ts';
import { isRetryable } from './send-errors.ts';
import { reportedSimSlots } from '../devices/shared-queries.ts';

export interface SimBreakerOptions {
  failures: number;
  pauseMs: number;
}

export interface PausedSim {
  deviceId: string;
  simSlot: number;
  pausedUntil: Date;
  reason: string;
  /** Every SIM the device reported is paused now. */
  allPaused: boolean;
}

/**
 * Counts the attempts that ended, per SIM, in their own transaction (after the reports committed:
 * a count lost in a crash costs nothing). Returns the SIMs it paused.
 */
export async function recordSimOutcomes(trx: Executor, ended: AttemptEnded[], now: number, options: SimBreakerOptions): Promise<PausedSim[]> {
  const sims = new Map<string, { deviceId: string; simSlot: number; steps: AttemptEnded[] }>();
  for (const end of ended) {
    if (end.simSlot === null) continue;
    // Permanent errors speak of the message or its recipient, not of the SIM.
    if (end.outcome === 'failed' && !isRetryable(end.errorCode)) continue;
    const key = `${end.deviceId}:${end.simSlot}`;
    const entry = sims.get(key) ?? { deviceId: end.deviceId, simSlot: end.simSlot, steps: [] };
    entry.steps.push(end);
    sims.set(key, entry);
  }
  const paused: PausedSim[] = [];
  // SIMs that only sent: one statement resets those that had failures (most have none).
  const sentOnly = [...sims.values()].filter((sim) => sim.steps.every((step) => step.outcome === 'sent'));
  if (sentOnly.length > 0) {
    await trx.raw(
      `update sim_health h set consecutive_failures = 0, last_error_code = null
         from (select unnest(?::uuid[]) as device_id, unnest(?::int2[]) as sim_slot) v
        where h.device_id = v.device_id and h.sim_slot = v.sim_slot and h.consecutive_failures > 0`,
      [sentOnly.map((sim) => sim.deviceId), sentOnly.map((sim) => sim.simSlot)] as never,
    );
  }
  // Rows locked in one order, so concurrent batches cannot deadlock on them.
  for (const key of [...sims.keys()].sort()) {
    const { deviceId, simSlot, steps } = sims.get(key)!;
    if (steps.every((step) => step.outcome === 'sent')) continue;
    const { rows } = await trx.raw<{ rows: { consecutive_failures: number; last_error_code: string | null }[] }>(
      `insert into sim_health (device_id, sim_slot) values (?, ?)
         on conflict (device_id, sim_slot) do update set device_id = excluded.device_id
       returning consecutive_failures, last_error_code`,
      [deviceId, simSlot],
    );
    let count = rows[0]?.consecutive_failures ?? 0;
    let code = rows[0]?.last_error_code ?? null;
    for (const step of steps) {
      if (step.outcome === 'sent') {
        count = 0;
        code = null;
      } else {
        count = step.errorCode === code ? count + 1 : 1;
        code = step.errorCode;
      }
    }
    if (count >= options.failures) {
      const pausedUntil = new Date(now + options.pauseMs);
      const reason = `${count} sends failed in a row (${code})`;
      await trx.raw(
        `update sim_health set consecutive_failures = 0, last_error_code = ?, paused_until = ?, paused_reason = ? where device_id = ? and sim_slot = ?`,
        [code, pausedUntil, reason, deviceId, simSlot],
      );
      paused.push({ deviceId, simSlot, pausedUntil, reason, allPaused: await allSimsPaused(trx, deviceId, now) });
    } else {
      await trx.raw(`update sim_health set consecutive_failures = ?, last_error_code = ? where device_id = ? and sim_slot = ?`, [count, code, deviceId, simSlot]);
    }
  }
  return paused;
}

async function allSimsPaused(trx: Executor, deviceId: string, now: number): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { all_paused: boolean }[] }>(
    `select coalesce(bool_and(h.paused_until is not null and h.paused_until > ?), false) as all_paused
       from (?) card
       left join sim_health h on h.device_id = ? and h.sim_slot = card.slot`,
    [new Date(now), reportedSimSlots(trx, deviceId), deviceId],
  );
  return Boolean(rows[0]?.all_paused);
}

/** The device's SIMs paused now, and until when: for the claim and GET /devices/{id}. */
export async function pausedSims(db: Executor, deviceId: string, now: number): Promise<{ sim_slot: number; paused_until: Date; paused_reason: string | null }[]> {
  const { rows } = await db.raw<{ rows: { sim_slot: number; paused_until: Date; paused_reason: string | null }[] }>(
    `select sim_slot, paused_until, paused_reason from sim_health where device_id = ? and paused_until > ? order by sim_slot`,
    [deviceId, new Date(now)],
  );
  return rows.map((row) => ({ ...row, sim_slot: Number(row.sim_slot) }));
}

/** Ends the device's SIM pauses now (PATCH settings with paused: false ends them with the device's). */
export async function resumeSims(db: Executor, deviceId: string): Promise<void> {
  await db.raw(`update sim_health set paused_until = null, paused_reason = null, consecutive_failures = 0 where device_id = ?`, [deviceId]);
}
