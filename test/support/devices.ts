// Simulated devices for tests: registered through the real service, connected over real TCP;
// and the pacing a test lifts when what it checks is not pacing.
import type { DomainEventMap, DomainEventName, GatewayEvents } from '../../src/event-catalog.ts';
import type { EventEmitter } from 'node:events';
import type { Gateway } from '../../src/gateway.ts';
import type { DeviceRow } from '../../src/modules/devices/types.ts';
import { updateDeviceSettings } from '../../src/use-cases/update-device-settings.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import type { Tenant } from './tenant.ts';
import { eventually } from './eventually.ts';

/**
 * Settings that let a device take as much as a test gives it: the largest send window and no
 * rate limits (new devices hold at most 5 tasks in flight and take 20 a minute, 300 an hour,
 * 2000 a day). The body of PATCH /devices/{id}/settings.
 */
export const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } } as const;

/** Lifts the device's pacing (UNPACED), through the use case PATCH .../settings runs. */
export async function liftLimits(gateway: Gateway, tenant: Tenant, deviceId: string): Promise<DeviceRow> {
  return updateDeviceSettings(gateway.services, gateway.services.db, tenant.accountId, deviceId, {
    send_window: UNPACED.send_window,
    limits: { ...UNPACED.limits },
  });
}

export async function connectDevice(
  gateway: Gateway,
  tenant: Tenant,
  options: Partial<SimulatedDeviceOptions> = {},
): Promise<SimulatedDevice> {
  const { device, token } = await gateway.services.devices.register(tenant.accountId, options.name ?? 'sim-phone');
  const simulated = new SimulatedDevice({
    brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
    deviceId: device.id,
    token,
    reconnectPeriodMs: 100,
    ...options,
  });
  await simulated.connect();
  // The phone's SIM cards reach the gateway in its first heartbeat, acknowledged by the broker
  // before the gateway has stored them. A test that sends at once would otherwise race them:
  // an SMS failed on one SIM is retried on another only once the gateway knows the other.
  const simCount = options.simCards?.length ?? 0;
  if (simCount > 0) {
    await eventually(`the SIM cards of ${device.id} stored`, async () => ((await gateway.services.devices.get(tenant.accountId, device.id)).sim_cards?.length === simCount ? true : undefined));
  }
  return simulated;
}

/** Resolves with the arguments of the first `event` for which `accept` holds. */
/** Resolves with the next announcement of `event` on the gateway's event seam that `accept` takes. */
export function nextDomainEvent<E extends DomainEventName>(
  events: GatewayEvents,
  event: E,
  accept: (payload: DomainEventMap[E]) => boolean = () => true,
  timeoutMs = 5_000,
): Promise<DomainEventMap[E]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    const stop = events.on(event, (payload) => {
      if (!accept(payload)) return;
      clearTimeout(timer);
      stop();
      resolve(payload);
    });
  });
}

export function nextEvent<T extends Record<keyof T, unknown[]>, K extends keyof T & string>(
  emitter: EventEmitter<T>,
  event: K,
  accept: (...args: T[K]) => boolean = () => true,
  timeoutMs = 5_000,
): Promise<T[K]> {
  const target = emitter as unknown as EventEmitter;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      target.off(event, listener);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    const listener = (...args: unknown[]) => {
      if (!accept(...(args as T[K]))) return;
      clearTimeout(timer);
      target.off(event, listener);
      resolve(args as T[K]);
    };
    target.on(event, listener);
  });
}
