// What delivery announces to the rest of the gateway (src/events/domain-events.ts): SMS moving on,
// send attempts ending, and the pauses its breakers decide.
import type { DeviceRow } from '../devices/types.ts';
import type { AttemptEnded } from './attempts.ts';
import type { SmsStatusChange } from './status-change.ts';

/** What the device pause events say of the device: enough for their webhooks without reading it again. */
export type PausedDevice = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'>;

export interface DeliveryEvents {
  /** SMS moved on (a device report, expiry, cancel, failover); written in the transaction of the changes. */
  'sms.status_changed': SmsStatusChange[];
  /** Send attempts ended (sent, or failed and maybe retried), as device reports said; committed. */
  'sms.attempts_ended': AttemptEnded[];
  /** The SIM breaker paused a SIM of a device after failed sends in a row; committed. */
  'sim.paused': { deviceId: string; accountId: string; simSlot: number; pausedUntil: Date; reason: string };
  /** A device's pause (the circuit breaker's, or every SIM paused) was found and announced, once; written in that transaction. */
  'device.paused': { device: PausedDevice; pausedUntil: Date; reason: string | null };
  /** A device's announced pause ended: its paused_until passed (time) or PATCH settings lifted it (settings); written in the transaction that announces it. */
  'device.resumed': { device: PausedDevice; pausedUntil: Date; endedBy: 'time' | 'settings' };
  /** Tasks handed to a device were taken back before its phone acknowledged them; committed. */
  'tasks.withdrawn': { deviceId: string; smsIds: string[]; reason: string };
}
