// Webhook event kinds and their payloads. Every payload carries an event id, its type, a
// timestamp, the account, and the SMS, device or call it concerns. A no_store SMS's text is never sent.
import { randomUUID } from 'node:crypto';
import type { DeviceRow } from '../devices/types.ts';
import type { SmsStatus } from '../messages/status.ts';
import type { SmsSnapshot } from '../../events/sms-status-change.ts';
import { toExtendedStatus } from '../messages/status.ts';
import { LEGACY_STATUS, legacyLabel } from '../messages/legacy-status-codes.ts';
import type { CallView } from '../calls/presenter.ts';

export const WEBHOOK_EVENTS = [
  'sms.status_changed',
  'sms.received',
  'device.online',
  'device.offline',
  'device.battery_low',
  'sim.paused',
  'call.missed',
  'call.recorded',
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

export function smsReceived(accountId: string, received: { id: string; device_id: string; phone: string; message: string; sim_slot: number | null; received_at: Date }): EventEnvelope {
  return envelope('sms.received', accountId, {
    sms: {
      id: received.id,
      device_id: received.device_id,
      phone: received.phone,
      message: received.message,
      sim_slot: received.sim_slot,
      received_at: received.received_at.toISOString(),
    },
  });
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

/** The SIM breaker paused a SIM of a device: no task names it until paused_until. */
export function simPaused(device: DeviceRow, sim: { simSlot: number; pausedUntil: Date; reason: string }): EventEnvelope {
  return envelope('sim.paused', device.account_id, {
    device: { id: device.id, object_id: device.object_id, name: device.name, name_custom: device.name_custom ?? device.name },
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

/** A test event: proves the receiver gets signed events from the gateway and answers them. */
export function webhookTest(accountId: string, webhook: { id: string; url: string }): EventEnvelope {
  return envelope(TEST_EVENT, accountId, {
    webhook: { id: webhook.id, url: webhook.url },
    message: 'A test event sent on request. A receiver answers it with 2xx like any other event.',
  });
}
