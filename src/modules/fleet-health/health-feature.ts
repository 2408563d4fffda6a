// Fleet health: whether each SIM of an account really sends and receives. The judge degrades and
// recovers SIMs after canary probes end; GET /devices/{id}/health shows why; each change is a
// webhook event (device.degraded, device.recovered) and, with an SMTP server, a mail to the owners.
import { defineFeature } from '../../composition/feature.ts';
import { AppError } from '../../common/errors.ts';
import { FleetHealthService } from './health/service.ts';
import { mailHealthChanges } from './health/owner-mail.ts';
import { fleetHealthWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Judges the SIMs on the canary probes, answers a device's health, and takes the owner's word that a SIM is healthy. */
    fleetHealth: FleetHealthService;
  }
}

export const fleetHealthFeature = defineFeature({
  name: 'fleet-health',
  provides: ['fleetHealth'],
  make: ({ db, clock }, need) => ({ fleetHealth: new FleetHealthService(db, need('events'), clock, need('devices')) }),
  listens: [
    {
      register: (events, need, { clock }) => {
        const devices = need('devices');
        const device = (trx: Parameters<typeof devices.get>[2], accountId: string, deviceId: string) =>
          devices.get(accountId, deviceId, trx).catch((error: unknown) => {
            if (error instanceof AppError && error.code === 'device_not_found') return undefined;
            throw error;
          });
        void events.listenAll(fleetHealthWebhookListeners({ outbox: need('outbox'), sender: need('webhookSender'), clock, device }));
      },
    },
    {
      // The owners hear of each batch of changes by mail, once committed, when there is an SMTP server.
      register: (events, need, { config, logger }) => {
        if (!config.inboundRules.smtpUrl) return;
        const users = need('users');
        const devices = need('devices');
        const mailer = need('mailer');
        const parts = {
          send: (mail: { to: string; subject: string; text: string }) => mailer.send(mail),
          ownerEmails: async (accountId: string) => (await users.list(accountId)).filter((user) => user.role === 'owner' && user.disabled_at === null).map((user) => user.email),
          deviceName: async (accountId: string, deviceId: string) => {
            const found = await devices.get(accountId, deviceId).catch(() => undefined);
            return found ? (found.name_custom ?? found.name) : undefined;
          },
          logger: logger.child({ component: 'fleet-health' }),
        };
        events.on('fleet.health_changed', (changes) => mailHealthChanges(parts, changes));
      },
    },
  ],
  waysIn: async () => {
    const { fleetHealthRoutes } = await import('../../api/extended/fleet-health/routes.ts');
    return { routes: (s) => fleetHealthRoutes(s.fleetHealth) };
  },
});
