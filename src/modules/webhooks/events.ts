// Webhook event kinds and their payloads. Every payload carries an event id, its type, a
// timestamp, the account, and the SMS, device or call it concerns. A no_store SMS's text is never sent.
import { randomUUID } from 'node:crypto';
import type { DeviceRow } from '../devices/types.ts';
import type { SmsStatus } from '../messages/status.ts';
import type { SmsSnapshot } from '../delivery/status-change.ts';
import { toExtendedStatus } from '../messages/status.ts';
import { LEGACY_STATUS, legacyLabel } from '../messages/legacy-status-codes.ts';
import type { CallView } from '../calls/presenter.ts';
import type { UssdView } from '../ussd/presenter.ts';

export const WEBHOOK_EVENTS = [
  'sms.status_changed',
  'sms.received',
  'device.online',
  'device.offline',
  'device.battery_low',
  'device.paused',
  'device.resumed',
  'sim.paused',
  'call.missed',
  'call.recorded',
  'ussd.completed',
  'ussd.failed',
  'mms.received',
  'contact.opted_out',
  'contact.opted_in',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Sent only when asked for (POST /webhooks/{id}/test), to that webhook alone, whatever events it
 * subscribes to: not an event anyone can subscribe to.
 */
export const TEST_EVENT = 'webhook.test';
/** Every type a delivery can carry. */
export type DeliveredEvent = WebhookEvent | typeof TEST_EVENT;

export interface EventEnvelope {
  id: string;
  type: DeliveredEvent;
  timestamp: string;
  account_id: string;
  data: Record<string, unknown>;
}

function envelope(type: DeliveredEvent, accountId: string, data: Record<string, unknown>, at = new Date()): EventEnvelope {
  return { id: randomUUID(), type, timestamp: at.toISOString(), account_id: accountId, data };
}

export function smsStatusChanged(sms: SmsSnapshot, from: SmsStatus, to: SmsStatus, at: Date, reason: string | null): EventEnvelope {
  return envelope(
    'sms.status_changed',
    sms.account_id,
    {
      sms: {
        id: sms.id,
        object_id: sms.object_id,
        phone: sms.phone,
        ...(sms.message === null ? { no_store: true } : { message: sms.message }),
        device_id: sms.device_id,
        device_object_id: sms.device_object_id,
        callback_id: sms.callback_id,
        // Only on what is not a plain text SMS: phone and message are then ciphertext, or the SMS carries data.
        ...(sms.is_encrypted ? { is_encrypted: true } : {}),
        ...(sms.kind && sms.kind !== 'text' ? { kind: sms.kind } : {}),
        status: toExtendedStatus(to),
        internal_status: to,
        legacy_status: LEGACY_STATUS[to],
        legacy_status_label: legacyLabel(to),
        previous_status: from,
        reason,
        // Which attempt the change belongs to: a send that failed with a retryable error is
        // tried again (on another SIM or phone) before its status is final.
        attempt: sms.attempt ?? 1,
      },
    },
    at,
  );
}

export function smsReceived(
  accountId: string,
  received: { id: string; device_id: string; phone: string; message: string; sim_slot: number | null; received_at: Date; is_encrypted?: boolean },
): EventEnvelope {
  return envelope('sms.received', accountId, {
    sms: {
      id: received.id,
      device_id: received.device_id,
      phone: received.phone,
      message: received.message,
      sim_slot: received.sim_slot,
      received_at: received.received_at.toISOString(),
      // Ciphertext from the phone, passed on as it came.
      ...(received.is_encrypted ? { is_encrypted: true } : {}),
    },
  });
}

/** A number put on (opted_out) or taken off (opted_in) the account's suppression list. */
export function contactOptChanged(change: { accountId: string; phone: string; optedOut: boolean; source: string; keyword: string | null; at: Date }): EventEnvelope {
  return envelope(
    change.optedOut ? 'contact.opted_out' : 'contact.opted_in',
    change.accountId,
    { contact: { phone: change.phone, source: change.source, keyword: change.keyword } },
    change.at,
  );
}

export function deviceEvent(type: 'device.online' | 'device.offline' | 'device.battery_low', device: DeviceRow): EventEnvelope {
  return envelope(type, device.account_id, {
    device: {
      id: device.id,
      object_id: device.object_id,
      name: device.name,
      name_custom: device.name_custom ?? device.name,
      battery_level: device.battery_level,
      is_charging: device.is_charging,
    },
  });
}

/** A device was paused (failed sends in a row, or every SIM paused): it takes no task until paused_until. */
export function devicePaused(device: DeviceNames, pausedUntil: Date, reason: string | null): EventEnvelope {
  return envelope('device.paused', device.account_id, {
    device: namesOf(device),
    pause: { paused_until: pausedUntil.toISOString(), reason },
  });
}

/** A device's pause ended: paused_until passed (ended_by time) or PATCH settings lifted it (ended_by settings). */
export function deviceResumed(device: DeviceNames, pausedUntil: Date, endedBy: 'time' | 'settings'): EventEnvelope {
  return envelope('device.resumed', device.account_id, {
    device: namesOf(device),
    pause: { paused_until: pausedUntil.toISOString(), ended_by: endedBy },
  });
}

type DeviceNames = Pick<DeviceRow, 'id' | 'object_id' | 'account_id' | 'name' | 'name_custom'>;

function namesOf(device: DeviceNames) {
  return { id: device.id, object_id: device.object_id, name: device.name, name_custom: device.name_custom ?? device.name };
}

/** The SIM breaker paused a SIM of a device: no task names it until paused_until. */
export function simPaused(device: DeviceRow, sim: { simSlot: number; pausedUntil: Date; reason: string }): EventEnvelope {
  return envelope('sim.paused', device.account_id, {
    device: namesOf(device),
    sim: { sim_slot: sim.simSlot, paused_until: sim.pausedUntil.toISOString(), reason: sim.reason },
  });
}

/** A phone reported a missed call. */
export function callMissed(accountId: string, call: CallView): EventEnvelope {
  return envelope('call.missed', accountId, { call });
}

/** A call's recording was uploaded: its metadata and where to download it, never the audio itself. */
export function callRecorded(accountId: string, call: CallView, downloadPath: string): EventEnvelope {
  return envelope('call.recorded', accountId, { call, download_path: downloadPath });
}

/** A USSD session ended: ussd.completed with the network's answer, or ussd.failed with its error (a timeout too). */
export function ussdFinished(accountId: string, ussd: UssdView): EventEnvelope {
  return envelope(ussd.status === 'completed' ? 'ussd.completed' : 'ussd.failed', accountId, { ussd });
}

/** A received MMS is complete: it with its parts and where to download each, never the bytes. */
export function mmsReceived(accountId: string, mms: Record<string, unknown>): EventEnvelope {
  return envelope('mms.received', accountId, { mms });
}

/** A test event: proves the receiver gets signed events from the gateway and answers them. */
export function webhookTest(accountId: string, webhook: { id: string; url: string }): EventEnvelope {
  return envelope(TEST_EVENT, accountId, {
    webhook: { id: webhook.id, url: webhook.url },
    message: 'A test event sent on request. A receiver answers it with 2xx like any other event.',
  });
}
