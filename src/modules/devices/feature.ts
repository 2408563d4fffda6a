// Devices: the phones and modems of an account, their settings, and whether they are online.
import { defineFeature } from '../../composition/feature.ts';
import { DevicePresence } from './presence.ts';
import { DeviceService } from './service.ts';
import { wireDeviceWebhooks } from './webhook-wiring.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    presence: DevicePresence;
    devices: DeviceService;
  }
}

export const devicesFeature = defineFeature({
  name: 'devices',
  provides: ['presence', 'devices'],
  make: ({ db, config, clock, logger, parts }, need) => {
    const events = need('events');
    const presence = new DevicePresence(config.deviceOfflineAfterMs, events, clock, parts.cluster?.presence);
    return { presence, devices: new DeviceService(db, presence, events, logger.child({ component: 'devices' }), need('invalidation')) };
  },
  listens: [
    {
      // Presence and battery as webhook events (device.online, device.offline, device.battery_low).
      register: (events, need, { db, logger }) =>
        wireDeviceWebhooks({ db, outbox: need('outbox'), sender: need('webhookSender'), events, devices: need('devices'), invalidation: need('invalidation'), logger: logger.child({ component: 'webhooks' }) }),
    },
  ],
  routes: async (services, { broker }) => {
    const { deviceRoutes } = await import('../../api/extended/devices/routes.ts');
    return deviceRoutes(services, broker);
  },
  runs: ({ presence, devices }) => [
    // Finds phones gone silent; stops while phones are still connected, before they are all closed.
    { name: 'presence', start: () => presence.start(), stop: () => presence.stop(), stopsIn: 'work' },
    // Last-seen times of the connections just closed are written before the database closes.
    { name: 'last-seen times', start: () => {}, stop: () => devices.stop(), stopsIn: 'phones-gone' },
  ],
});
