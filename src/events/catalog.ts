// Everything one part of the gateway announces to the others, and what each announcement
// carries. Modules announce what happened; who hears it is decided in composition
// (src/services.ts). Events written in a transaction are heard there first (what follows from the
// change commits or fails with it), and again once it commits; the others are heard as they happen.
import type { DeviceRow } from '../modules/devices/types.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import type { IncomingSmsRow } from '../modules/incoming/types.ts';
import type { CallRow, RecordingRow } from '../modules/calls/types.ts';
import type { IncomingMms, IncomingMmsRow } from '../modules/mms/types.ts';
import type { SmsStatusChange } from './sms-status-change.ts';
import type { UssdSessionRow } from '../modules/ussd/types.ts';
import type { OptOutReply, SuppressionChange } from '../modules/opt-out/types.ts';
import type { AttemptEnded } from '../modules/delivery/attempts.ts';

/** What the device pause events say of the device: enough for their webhooks without reading it again. */
export type PausedDevice = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'>;

export interface DomainEventMap {
  /** A stored SMS was committed; it may or may not have a device yet. */
  'sms.queued': SmsRecord;
  /** A no_store SMS, held only in memory, must be handed to its device now. */
  'sms.transient': SmsRecord;
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
  /** An incoming SMS was stored (not a repeat of one already stored); written in its transaction. */
  'incoming.stored': IncomingSmsRow;
  /**
   * A received MMS was stored (not a repeat), its parts maybe still to come; written in its
   * transaction. Its text goes where a received SMS's goes (opt-out keywords, inbound rules, the inbox).
   */
  'incoming_mms.stored': IncomingMmsRow;
  /** A received MMS ended: every part uploaded, or the rest refused or given up on; written in its transaction. */
  'mms.received': IncomingMms;
  /** A call was stored (not a repeat); written in its transaction. */
  'call.stored': CallRow;
  /** A call's recording was stored; written in its transaction. */
  'recording.stored': { call: CallRow; recording: RecordingRow };
  /** A call left the log (deleted, or its phone was); committed. What lives outside the database may follow. */
  'call.deleted': { call: CallRow; recording: RecordingRow | undefined };
  /** A USSD session ended, completed or failed (a timeout too); written in the transaction that ended it. */
  'ussd.finished': UssdSessionRow;
  /** A device connected, or showed activity after silence. */
  'device.online': { deviceId: string; accountId: string };
  /** A device disconnected, or went silent past DEVICE_OFFLINE_AFTER. */
  'device.offline': { deviceId: string; accountId: string };
  /**
   * No change: where a device stands is to be stated again (the broker's retained presence
   * message, after another node's reaping or a Redis outage); nothing is announced to clients.
   */
  'device.presence_restated': { deviceId: string; online: boolean };
  /** A device's settings changed (PATCH settings, legacy edit). */
  'device.settings_changed': DeviceRow;
  /** A device was deleted; its credentials are dead. */
  'device.deleted': DeviceRow;
  /** A device was given a new token; the old one is dead, and so must be a connection made with it. */
  'device.token_replaced': DeviceRow;
  /** A device with notify_low_battery on reported its battery falling below the threshold. */
  'device.battery_low': DeviceRow;
  /** Tasks handed to a device were taken back before its phone acknowledged them; committed. */
  'tasks.withdrawn': { deviceId: string; smsIds: string[]; reason: string };
  /** A user was disabled, or their password reset by someone else; written in its transaction, so whoever was logged in is logged out with it. */
  'user.locked_out': { userId: string };
  /** An SMPP credential was revoked; committed. Its sessions must end now. */
  'smpp.credential_revoked': { credentialId: string; systemId: string };
  /** Numbers were put on or taken off an account's suppression list (a keyword, the API, an import); written in its transaction. */
  'suppressions.changed': SuppressionChange[];
  /** A keyword (STOP, START, HELP) is to be answered through the phone that received it; written in its transaction. */
  'opt_out.reply_due': OptOutReply;
  /** One of the account's webhooks was created, changed or deleted. */
  'webhooks.changed': { accountId: string };
}

export type DomainEventName = keyof DomainEventMap;
