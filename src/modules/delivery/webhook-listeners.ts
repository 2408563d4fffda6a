// Delivery's facts as webhook events: every SMS status change, whatever caused it, and the pauses
// its breakers put on a device or a SIM. Status changes and device pauses are written to the
// outbox in the transaction of their change; a SIM's pause is announced once committed, and is
// written as it happens.
import type { Database, Executor } from '../../storage/database.ts';
import type { EventListeners } from '../../events/domain-events.ts';
import { formattedEvent, type FormattedDelivery, type WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { DeviceService } from '../devices/service.ts';
import { devicePaused, deviceResumed, simPaused } from '../devices/webhook-events.ts';
import type { DeliveryEvents } from './domain-events.ts';
import { newStatus, type SmsStatusChange } from './status-change.ts';
import { smsStatusChanged } from './webhook-events.ts';

/** The deliveries of another format that status changes call for (Twilio's StatusCallbacks). */
export type StatusCallbacks = (trx: Executor, changes: SmsStatusChange[]) => Promise<readonly FormattedDelivery[]>;

export interface DeliveryWebhookWiring {
  db: Database;
  /**
   * Written with the standard events of the same changes, in one outbox call: the chains it locks
   * are then taken in one ordered pass. Written in two calls, each in order, a sender recording
   * deliveries of both kinds could hold one chain while waiting for the other, crossed.
   */
  statusCallbacks?: StatusCallbacks;
  outbox: WebhookOutbox;
  sender: WebhookSender;
  devices: DeviceService;
}

export function deliveryWebhookListeners(w: DeliveryWebhookWiring): EventListeners<DeliveryEvents> {
  return {
    'sms.status_changed': {
      inTransaction: async (trx, changes) => {
        const formatted = w.statusCallbacks ? await w.statusCallbacks(trx, changes) : [];
        await w.outbox.record(trx, [
          // A fleet health check (kind canary) is the gateway's own SMS: no sms.* webhook tells of it.
          ...changes.filter((change) => change.sms.kind !== 'canary').map((change) => ({
            envelope: smsStatusChanged(change.sms, change.from, newStatus(change), change.at, change.reason),
            callbackId: change.sms.callback_id,
          })),
          ...formatted.map(formattedEvent),
        ]);
      },
      // The sender is woken once the rows it should find are committed.
      committed: () => w.sender.wake(),
    },
    // A device's pause and its end, in the transaction that announces each (pause-announcer.ts).
    'device.paused': {
      inTransaction: async (trx, { device, pausedUntil, reason }) => {
        await w.outbox.record(trx, [{ envelope: devicePaused(device, pausedUntil, reason) }]);
      },
      committed: () => w.sender.wake(),
    },
    'device.resumed': {
      inTransaction: async (trx, { device, pausedUntil, endedBy }) => {
        await w.outbox.record(trx, [{ envelope: deviceResumed(device, pausedUntil, endedBy) }]);
      },
      committed: () => w.sender.wake(),
    },
    'sim.paused': {
      committed: async (sim) => {
        const device = await w.devices.findAnyAccount(sim.deviceId);
        if (device && (await w.outbox.record(w.db, [{ envelope: simPaused(device, sim) }])) > 0) w.sender.wake();
      },
    },
  };
}
