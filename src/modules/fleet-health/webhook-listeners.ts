// Fleet health's changes as webhook events: device.degraded and device.recovered, one per SIM
// changed, written to the outbox in the transaction that changed it (so each change is announced
// once, and not at all if it rolls back).
import type { Clock } from '../../common/clock.ts';
import type { EventListeners } from '../../events/domain-events.ts';
import type { Executor } from '../../storage/database.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { DeviceRow } from '../devices/types.ts';
import type { FleetHealthEvents } from './domain-events.ts';
import { simHealthEvent } from './webhook-events.ts';

export interface FleetHealthWebhookWiring {
  outbox: WebhookOutbox;
  sender: WebhookSender;
  clock: Clock;
  /** The live device, read on the change's transaction; undefined once deleted. */
  device(trx: Executor, accountId: string, deviceId: string): Promise<DeviceRow | undefined>;
}

export function fleetHealthWebhookListeners(w: FleetHealthWebhookWiring): EventListeners<FleetHealthEvents> {
  return {
    'fleet.health_changed': {
      inTransaction: async (trx, changes) => {
        const at = new Date(w.clock.now());
        const devices = new Map<string, DeviceRow | undefined>();
        const events = [];
        for (const change of changes) {
          if (!devices.has(change.deviceId)) devices.set(change.deviceId, await w.device(trx, change.accountId, change.deviceId));
          const device = devices.get(change.deviceId);
          if (device) events.push({ envelope: simHealthEvent(device, change, at) });
        }
        await w.outbox.record(trx, events);
      },
      committed: () => w.sender.wake(),
    },
  };
}
