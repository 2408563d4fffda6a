// What the rest of the gateway may ask of delivery about SMS tasks, beside what the dispatcher
// does on its own: a device's tasks when it may no longer send or is deleted, an SMS cancelled
// before a phone took it, and what a device has to do. The use cases that span modules (src/use-cases/) call these in
// their transaction; every status change is announced there, as "sms.status_changed".
import type { Static } from '@sinclair/typebox';
import type { Database, Executor } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DeliveryEvents } from './domain-events.ts';
import type { MessagesEvents } from '../messages/domain-events.ts';
import type { DeviceRow } from '../devices/types.ts';
import type { DeviceQueue } from '../devices/schema.ts';
import type { DeliverySettingsView } from './schema.ts';

export type DeliverySettings = Static<typeof DeliverySettingsView>;
import { roomFor } from './pacing.ts';
import { queueBlocker } from './claim-plan.ts';
import type { SmsRecord } from '../messages/types.ts';
import { invalidField } from '../../common/errors.ts';
import {
  cancelPending,
  deviceUsage,
  endTakenByDeletedDevice,
  LIMIT_GRACE_MS,
  lockForReplacement,
  releaseUnacknowledged,
  setStickySender,
  spaceNextSend,
  stickySender,
  waitingForDevice,
  writeReplacement,
  writeStatusChanges,
  type SmsReplacement,
} from './repository.ts';
import { pausedSims, resumeSims } from './sim-breaker.ts';
import { attemptsOf, endOpenAttempts, type AttemptRow } from './attempts.ts';
import type { SmsStatusChange } from './status-change.ts';
import { writeUpstreamAttempt, type UpstreamAttempt } from './upstream-outcomes.ts';

export class TaskService {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<DeliveryEvents & MessagesEvents>,
    private readonly clock: Clock,
  ) {}

  /**
   * A device that may no longer send gives back, in `trx`, the tasks its phone has not
   * acknowledged: those for any device to the pool, those named for it to its own queue, where
   * they wait until it may send again. Switching a device off destroys nothing (a valid_until
   * still bounds the wait); tasks its phone acknowledged stay its own. Once `trx` commits, they
   * are announced as "tasks.withdrawn" (the phone is told to drop them).
   */
  async withdrawUnacknowledged(trx: Executor, deviceId: string): Promise<void> {
    const { returned, requeued } = await releaseUnacknowledged(trx, deviceId, { named: 'requeue', reason: 'device_disabled', now: this.clock.now() });
    const smsIds = [...returned, ...requeued];
    if (smsIds.length > 0) await this.events.written(trx, 'tasks.withdrawn', { deviceId, smsIds, reason: 'device_disabled' });
  }

  /**
   * A deleted device's work, in `trx`: tasks its phone has not acknowledged go back to the pool,
   * or fail when their client named it; what its phone took and cannot report any more ends too
   * (endTakenByDeletedDevice), so that every SMS of the device reaches a final status.
   */
  async endDeletedDeviceTasks(trx: Executor, deviceId: string): Promise<void> {
    const now = this.clock.now();
    const { failed } = await releaseUnacknowledged(trx, deviceId, { named: 'fail', reason: 'device_deleted', now });
    const ended = await endTakenByDeletedDevice(trx, deviceId, now);
    await endOpenAttempts(trx, ended.map((change) => change.sms.id), new Date(now), 'device_deleted');
    await this.events.written(trx, 'sms.status_changed', [...failed, ...ended]);
  }

  /** Cancels, in `trx`, an SMS no phone has taken yet: it ends as failed_send, reason "cancelled". False when it is no longer pending. */
  async cancelPending(trx: Executor, accountId: string, smsId: string): Promise<boolean> {
    const change = await cancelPending(trx, accountId, smsId, this.clock.now());
    if (change) await this.events.written(trx, 'sms.status_changed', [change]);
    return change !== undefined;
  }

  /**
   * Replaces, in `trx`, the text (and optionally the schedule and validity) of an SMS no phone has
   * acknowledged. `mayTakeBack` is asked about the device holding its task, when one does: a
   * phone that cannot be told to drop the old text (offline) keeps it, and the SMS is not
   * replaced. A task taken back is announced as "tasks.withdrawn" (reason "replaced": the phone
   * is told to drop it, before the SMS is queued again as "sms.queued", both once `trx` commits),
   * so that a phone hears of the old text's end before it can be handed the new one.
   * unknown: the account has no such SMS; taken: a phone acknowledged it, it ended, or its
   * phone cannot be told. A validity that would end before the SMS may be sent is refused
   * (AppError on valid_until).
   */
  async replacePending(
    trx: Executor,
    accountId: string,
    smsId: string,
    replacement: SmsReplacement,
    mayTakeBack: (deviceId: string) => boolean,
  ): Promise<{ outcome: 'replaced'; sms: SmsRecord } | { outcome: 'unknown' | 'taken'; sms?: SmsRecord }> {
    const locked = await lockForReplacement(trx, accountId, smsId);
    if (!locked) return { outcome: 'unknown' };
    // Expired, though the sweep has not ended it yet: as good as ended.
    const expired = locked.expires_at !== null && locked.expires_at.getTime() <= this.clock.now();
    if (locked.status !== 'pending' || expired) return { outcome: 'taken', sms: locked };
    const handedTo = locked.dispatched_at ? locked.device_id : null;
    if (handedTo && !mayTakeBack(handedTo)) return { outcome: 'taken', sms: locked };
    const sendAt = replacement.sendAt === undefined ? locked.send_at : replacement.sendAt;
    const expiresAt = replacement.expiresAt === undefined ? locked.expires_at : replacement.expiresAt;
    if (expiresAt && expiresAt.getTime() <= Math.max(this.clock.now(), sendAt?.getTime() ?? 0)) {
      throw invalidField('valid_until', 'the SMS would expire before it may be sent');
    }
    const replaced = await writeReplacement(trx, locked, replacement, this.clock.now());
    if (handedTo) await this.events.written(trx, 'tasks.withdrawn', { deviceId: handedTo, smsIds: [smsId], reason: 'replaced' });
    await this.events.written(trx, 'sms.queued', replaced);
    return { outcome: 'replaced', sms: replaced };
  }

  /** What GET /devices/{id} shows of the device's work: in flight, waiting, recent sends. */
  async queueOf(device: DeviceRow): Promise<Static<typeof DeviceQueue>> {
    const now = this.clock.now();
    const [usage, waiting, paused] = await Promise.all([
      deviceUsage(this.db, device.id, now, false, true),
      waitingForDevice(this.db, device.id),
      pausedSims(this.db, device.id, now),
    ]);
    const room = usage && device.can_send_sms ? roomFor(usage.settings, usage.usage, now, LIMIT_GRACE_MS) : undefined;
    const blockedBy = usage && room ? queueBlocker(usage, room, now, LIMIT_GRACE_MS) : 'cannot_send';
    return {
      in_flight: usage?.usage.inFlight ?? 0,
      waiting,
      sent_last_minute: usage?.usage.lastMinute ?? 0,
      sent_last_hour: usage?.usage.lastHour ?? 0,
      sent_last_day: usage?.usage.lastDay ?? 0,
      blocked_by: blockedBy,
      paused_sims: paused.map((sim) => ({ sim_slot: sim.sim_slot, paused_until: sim.paused_until.toISOString(), reason: sim.paused_reason })),
    };
  }

  /** Ends the pauses of the device's SIMs, in `trx` (the device's pause ended by hand). */
  resumeSims(trx: Executor, deviceId: string): Promise<void> {
    return resumeSims(trx, deviceId);
  }

  /** Forgets the pause drawn from the device's previous send_jitter, in `trx`. */
  resetSpacing(trx: Executor, deviceId: string): Promise<void> {
    return spaceNextSend(trx, deviceId, null);
  }

  /** The account's delivery choices. */
  async deliverySettings(accountId: string): Promise<DeliverySettings> {
    return { sticky_sender: await stickySender(this.db, accountId) };
  }

  /** Changes the account's delivery choices; fields left out stay. */
  async updateDeliverySettings(accountId: string, patch: Partial<DeliverySettings>): Promise<DeliverySettings> {
    if (patch.sticky_sender !== undefined) await setStickySender(this.db, accountId, patch.sticky_sender, this.clock.now());
    return this.deliverySettings(accountId);
  }

  /** An SMS's send attempts, first first; undefined when the account has no such SMS. */
  attemptsOf(accountId: string, smsId: string): Promise<AttemptRow[] | undefined> {
    return attemptsOf(this.db, accountId, smsId);
  }

  /**
   * Writes, in `trx`, status changes the gateway decided for SMS no phone holds (a provider's
   * answer or receipt) and announces them as a phone's report would be: history, webhooks, the rest.
   */
  async recordChanges(trx: Executor, changes: SmsStatusChange[]): Promise<void> {
    if (changes.length === 0) return;
    await writeStatusChanges(trx, changes);
    await this.events.written(trx, 'sms.status_changed', changes);
  }

  /** Logs, in `trx`, an attempt through a provider beside the phones' attempts. */
  recordUpstreamAttempt(trx: Executor, attempt: UpstreamAttempt): Promise<void> {
    return writeUpstreamAttempt(trx, attempt);
  }

  /** Tells, once `trx` commits, the phone that held these SMS unacknowledged that they went elsewhere. */
  async withdrawn(trx: Executor, deviceId: string, smsIds: string[], reason: string): Promise<void> {
    if (smsIds.length > 0) await this.events.written(trx, 'tasks.withdrawn', { deviceId, smsIds, reason });
  }
}
