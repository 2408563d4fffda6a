// A device's presence and battery as webhook events (device.online, device.offline,
// device.battery_low). They have no row of their own, so they are written as they happen.
import { OutageNotice } from '../../common/outage-notice.ts';
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { EventListeners } from '../../events/domain-events.ts';
import type { CacheEvents } from '../../cluster/cache-events.ts';
import type { WebhooksEvents } from '../webhooks/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import { SubscribedAccounts } from '../webhooks/subscribed-accounts.ts';
import type { DevicesEvents } from './domain-events.ts';
import type { DeviceService } from './service.ts';
import type { DeviceRow } from './types.ts';
import { deviceEvent } from './webhook-events.ts';

export interface DeviceWebhookWiring {
  db: Database;
  outbox: WebhookOutbox;
  sender: WebhookSender;
  devices: DeviceService;
  logger: Logger;
}

export function deviceWebhookListeners(w: DeviceWebhookWiring): EventListeners<DevicesEvents & WebhooksEvents & CacheEvents> {
  const recordDeviceEvent = async (type: 'device.online' | 'device.offline' | 'device.battery_low', device: DeviceRow | undefined) => {
    if (!device) return;
    if ((await w.outbox.record(w.db, [{ envelope: deviceEvent(type, device) }])) > 0) w.sender.wake();
  };
  // Devices connect and disconnect in storms: an account with no webhook for presence events
  // should cost nothing then.
  const listening = new SubscribedAccounts(w.db, ['device.online', 'device.offline']);
  // Presence changes come in bursts when the database goes away (devices time out together):
  // the events they would have recorded are lost with it, and said so once, not once each.
  const outage = new OutageNotice(w.logger, 'device.online / device.offline events not recorded');
  const onPresence = (type: 'device.online' | 'device.offline') => ({ deviceId, accountId }: { deviceId: string; accountId: string }) => {
    listening
      .has(accountId)
      .then(async (yes) => (yes ? recordDeviceEvent(type, await w.devices.findAnyAccount(deviceId)) : undefined))
      .then(() => outage.succeeded())
      .catch((error: unknown) => {
        if (!outage.failed(error)) w.logger.error({ err: error, deviceId }, 'device event not recorded');
      });
  };
  return {
    'device.online': { committed: onPresence('device.online') },
    'device.offline': { committed: onPresence('device.offline') },
    'device.battery_low': { committed: (device) => recordDeviceEvent('device.battery_low', device) },
    // Whether an account listens is forgotten when one of its webhooks changes, here or elsewhere.
    'webhooks.changed': { committed: ({ accountId }) => listening.forget(accountId) },
    'cache.changed_elsewhere': { committed: ({ kind, id }) => void (kind === 'webhooks' && listening.forget(id)) },
    'cache.news_missed': { committed: () => listening.forgetAll() },
  };
}
