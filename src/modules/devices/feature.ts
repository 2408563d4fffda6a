// Devices: the phones and modems of an account, their settings, and whether they are online.
import { defineFeature } from '../../composition/feature.ts';
import { DevicePresence } from './presence.ts';
import { DeviceService } from './service.ts';
import { deviceWebhookListeners } from './webhook-listeners.ts';

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
    return { presence, devices: new DeviceService(db, presence, events, logger.child({ component: 'devices' }), need('invalidation'), config.defaultPhoneRegion) };
  },
  listens: [
    {
      // Another node changed or deleted a device: this node acts as if it had done it.
      register: (events, need) => {
        const devices = need('devices');
        events.on('cache.changed_elsewhere', ({ kind, id }) => {
          if (kind === 'device_settings') return devices.changedElsewhere(id);
          if (kind === 'device_deleted') return devices.revokedElsewhere(id);
        });
      },
    },
    {
      // Presence and battery as webhook events (device.online, device.offline, device.battery_low).
      register: (events, need, { db, logger }) =>
        void events.listenAll(deviceWebhookListeners({ db, outbox: need('outbox'), sender: need('webhookSender'), devices: need('devices'), logger: logger.child({ component: 'webhooks' }) })),
    },
  ],
  runs: ({ presence, devices }) => [
    // Finds phones gone silent; stops while phones are still connected, before they are all closed.
    { name: 'presence', start: () => presence.start(), stop: () => presence.stop(), stopsIn: 'work' },
    // Heartbeats and last-seen times of the connections just closed are written before the database closes.
    { name: 'heartbeats and last-seen times', start: () => {}, stop: () => devices.stop(), stopsIn: 'phones-gone' },
  ],
  waysIn: async () => {
    const { deviceRoutes } = await import('../../api/extended/devices/routes.ts');
    return { routes: (s, { broker }) => deviceRoutes(s, broker) };
  },
});
