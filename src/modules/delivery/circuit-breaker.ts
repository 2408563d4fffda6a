// A phone whose sends keep failing (no credit, a blocked SIM, no signal) would otherwise eat the
// queue: every task it takes ends as failed_send. After `failures` failed sends in a row the
// device is paused for `pauseMs`: it takes no new tasks, and the tasks it has not acknowledged
// go back to the pool for other phones. A successful send resets the count. The account hears of
// the pause and of its end from pause-announcer.ts (device.paused, device.resumed), which finds
// both on the device row.
import type { Executor } from '../../storage/database.ts';
import { newStatus, type SmsStatusChange } from './status-change.ts';
import { releaseUnacknowledged } from './repository.ts';
import { clearSendFailures, countSendFailures, pauseDeviceUntil } from '../devices/shared-queries.ts';
import type { AttemptEnded } from './attempts.ts';

export interface BreakerOptions {
  failures: number;
  pauseMs: number;
}

const SUCCESS: ReadonlySet<string> = new Set(['sent', 'delivered', 'undelivered', 'failed_delivery']);

/**
 * Failures the phone chose, rightly: an encrypted SMS whose recipient opted out is refused unsent.
 * They say nothing of the phone, its SIM or its credit, so they neither count nor reset the count.
 */
const NOT_THE_PHONES_FAULT: ReadonlySet<string> = new Set(['recipient_opted_out']);

export interface Tripped {
  deviceId: string;
  reason: string;
}

/**
 * Counts the send outcomes among device reports, inside their transaction; returns the devices
 * whose count reached the threshold (their count starts again from zero). Pausing them is a
 * transaction of its own (pauseDevice), after this one commits: it moves SMS rows of the device,
 * which a concurrent batch of reports may hold.
 */
export async function recordSendOutcomes(trx: Executor, changes: SmsStatusChange[], options: BreakerOptions): Promise<Tripped[]> {
  const outcomes = new Map<string, Outcome>();
  for (const change of changes) {
    const deviceId = change.sms.device_id;
    if (change.source !== 'device' || !deviceId) continue;
    const status = newStatus(change);
    const entry = outcomes.get(deviceId) ?? { reset: false, failed: 0, lastError: null };
    if (status === 'failed_send') {
      if (change.reason !== null && NOT_THE_PHONES_FAULT.has(change.reason)) continue;
      entry.failed++;
      entry.lastError = change.reason;
    } else if (SUCCESS.has(status) && change.from !== 'sent') {
      // A send that worked: the failures before it no longer count.
      entry.reset = true;
      entry.failed = 0;
    } else continue;
    outcomes.set(deviceId, entry);
  }
  return countOutcomes(trx, outcomes, options);
}

/**
 * Failed sends that go round again (a retry) end no SMS, so no status change counts them: they
 * count here, in a transaction of their own once their reports committed.
 */
export function recordRetriedFailures(trx: Executor, ended: AttemptEnded[], options: BreakerOptions): Promise<Tripped[]> {
  const outcomes = new Map<string, Outcome>();
  for (const end of ended) {
    if (!end.retried || (end.errorCode !== null && NOT_THE_PHONES_FAULT.has(end.errorCode))) continue;
    const entry = outcomes.get(end.deviceId) ?? { reset: false, failed: 0, lastError: null };
    entry.failed++;
    entry.lastError = end.errorCode;
    outcomes.set(end.deviceId, entry);
  }
  return countOutcomes(trx, outcomes, options);
}

type Outcome = { reset: boolean; failed: number; lastError: string | null };

async function countOutcomes(trx: Executor, outcomes: Map<string, Outcome>, options: BreakerOptions): Promise<Tripped[]> {
  const tripped: Tripped[] = [];
  // Device rows are locked in id order, so concurrent batches cannot deadlock on them.
  for (const deviceId of [...outcomes.keys()].sort()) {
    const outcome = outcomes.get(deviceId)!;
    const count = await countSendFailures(trx, deviceId, outcome.reset, outcome.failed);
    if (count < options.failures) continue;
    await clearSendFailures(trx, deviceId);
    const lastError = outcome.lastError ? ` (last error: ${outcome.lastError.slice(0, 200)})` : '';
    tripped.push({ deviceId, reason: `${count} sends failed in a row${lastError}` });
  }
  return tripped;
}

/** Pauses the device and gives its unacknowledged tasks back to the pool. */
export async function pauseDevice(trx: Executor, tripped: Tripped, now: number, options: BreakerOptions): Promise<number> {
  await pauseDeviceUntil(trx, tripped.deviceId, new Date(now + options.pauseMs), tripped.reason);
  const { returned } = await releaseUnacknowledged(trx, tripped.deviceId, { named: 'keep', reason: tripped.reason, now });
  return returned.length;
}
