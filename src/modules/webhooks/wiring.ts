// Connects the rest of the gateway to webhooks: which changes become which events, and when
// the sender wakes. SMS and incoming-SMS events are written in the transaction of their change;
// device presence and battery events have no row of their own and are written as they happen.
import { OutageNotice } from '../../storage/database-errors.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DeliveryEvents } from '../delivery/domain-events.ts';
import type { DevicesEvents } from '../devices/domain-events.ts';
import type { IncomingEvents } from '../incoming/domain-events.ts';
import type { OptOutEvents } from '../opt-out/domain-events.ts';
import type { WebhooksEvents } from './domain-events.ts';
import { newStatus, type SmsStatusChange } from '../delivery/status-change.ts';
import type { DeviceService } from '../devices/service.ts';
import type { DeviceRow } from '../devices/types.ts';
import { contactOptChanged, deviceEvent, devicePaused, deviceResumed, simPaused, smsReceived, smsStatusChanged } from './events.ts';
import { formattedEvent, type FormattedDelivery, type WebhookOutbox } from './outbox.ts';
import type { WebhookSender } from './sender.ts';
import { hasWebhookFor } from './repository.ts';
import type { CacheInvalidation } from '../../cluster/invalidation.ts';

/** The events webhooks are written for. */
type WiredEvents = DeliveryEvents & DevicesEvents & IncomingEvents & OptOutEvents & WebhooksEvents;

/** How long "this account has (no) webhook for presence events" is believed. */
const PRESENCE_LISTENERS_TTL_MS = 5_000;

/** The deliveries of another format that status changes call for (Twilio's StatusCallbacks). */
export type StatusCallbacks = (trx: Executor, changes: SmsStatusChange[]) => Promise<FormattedDelivery[]>;

export interface WebhookWiring {
  db: Database;
  /**
   * Written with the standard events of the same changes, in one outbox call: the chains it locks
   * are then taken in one ordered pass. Written in two calls, each in order, a sender recording
   * deliveries of both kinds could hold one chain while waiting for the other, crossed.
   */
  statusCallbacks?: StatusCallbacks;
  outbox: WebhookOutbox;
  sender: WebhookSender;
  events: DomainEvents<WiredEvents>;
  devices: DeviceService;
  /** Tells other nodes of webhook changes here, and this node of theirs. */
  invalidation: CacheInvalidation;
  logger: Logger;
}

export function wireWebhooks(w: WebhookWiring): void {
  // Every SMS status change, whatever caused it, is written to the outbox in its transaction.
  w.events.listen('sms.status_changed', {
    inTransaction: async (trx, changes) => {
      const formatted = w.statusCallbacks ? await w.statusCallbacks(trx, changes) : [];
      await w.outbox.record(trx, [
        ...changes.map((change) => ({
          envelope: smsStatusChanged(change.sms, change.from, newStatus(change), change.at, change.reason),
          callbackId: change.sms.callback_id,
        })),
        ...formatted.map(formattedEvent),
      ]);
    },
    // The sender is woken once the rows it should find are committed.
    committed: () => w.sender.wake(),
  });
  w.events.listen('incoming.stored', {
    inTransaction: async (trx, row) => {
      await w.outbox.record(trx, [{ envelope: smsReceived(row.account_id, row) }]);
    },
    committed: () => w.sender.wake(),
  });

  // A number opting out or in (a keyword, the API, an import), in the transaction that changed the list.
  w.events.listen('suppressions.changed', {
    inTransaction: async (trx, changes) => {
      await w.outbox.record(trx, changes.map((change) => ({ envelope: contactOptChanged(change) })));
    },
    committed: () => w.sender.wake(),
  });

  const recordDeviceEvent = async (type: 'device.online' | 'device.offline' | 'device.battery_low', device: DeviceRow | undefined) => {
    if (!device) return;
    if ((await w.outbox.record(w.db, [{ envelope: deviceEvent(type, device) }])) > 0) w.sender.wake();
  };
  // Devices connect and disconnect in storms: an account with no webhook for device events
  // should cost nothing then. Whether it has one is cached for a few seconds, and forgotten at
  // once when any node changes one of the account's webhooks (other nodes, and commands, tell
  // over Redis: account-services.ts publishes every change).
  const listening = new Map<string, { yes: boolean; until: number }>();
  w.events.on('webhooks.changed', ({ accountId }) => void listening.delete(accountId));
  w.invalidation.on('webhooks', (accountId) => listening.delete(accountId));
  w.invalidation.onReset(() => listening.clear());
  const listensForPresence = async (accountId: string): Promise<boolean> => {
    const cached = listening.get(accountId);
    if (cached && cached.until > Date.now()) return cached.yes;
    const yes = await hasWebhookFor(w.db, accountId, ['device.online', 'device.offline']);
    if (listening.size > 100_000) listening.clear();
    listening.set(accountId, { yes, until: Date.now() + PRESENCE_LISTENERS_TTL_MS });
    return yes;
  };
  // Presence changes come in bursts when the database goes away (devices time out together):
  // the events they would have recorded are lost with it, and said so once, not once each.
  const outage = new OutageNotice(w.logger, 'device.online / device.offline events not recorded');
  const onPresence = (type: 'device.online' | 'device.offline') => ({ deviceId, accountId }: { deviceId: string; accountId: string }) => {
    listensForPresence(accountId)
      .then(async (yes) => (yes ? recordDeviceEvent(type, await w.devices.findAnyAccount(deviceId)) : undefined))
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (!outage.failed(error)) w.logger.error({ err: error, deviceId }, 'device event not recorded');
      });
  };
  w.events.on('device.online', onPresence('device.online'));
  w.events.on('device.offline', onPresence('device.offline'));
  w.events.on('device.battery_low', (device) => recordDeviceEvent('device.battery_low', device));
  // A device's pause and its end, in the transaction that announces each (pause-announcer.ts).
  w.events.listen('device.paused', {
    inTransaction: async (trx, { device, pausedUntil, reason }) => {
      await w.outbox.record(trx, [{ envelope: devicePaused(device, pausedUntil, reason) }]);
    },
    committed: () => w.sender.wake(),
  });
  w.events.listen('device.resumed', {
    inTransaction: async (trx, { device, pausedUntil, endedBy }) => {
      await w.outbox.record(trx, [{ envelope: deviceResumed(device, pausedUntil, endedBy) }]);
    },
    committed: () => w.sender.wake(),
  });
  w.events.on('sim.paused', async (sim) => {
    const device = await w.devices.findAnyAccount(sim.deviceId);
    if (device && (await w.outbox.record(w.db, [{ envelope: simPaused(device, sim) }])) > 0) w.sender.wake();
  });
}
