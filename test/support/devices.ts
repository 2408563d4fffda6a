// Simulated devices for tests: registered through the real service, connected over real TCP.
import type { EventEmitter } from 'node:events';
import type { Gateway } from '../../src/gateway.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import type { Tenant } from './tenant.ts';

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
  return simulated;
}

/** Resolves with the arguments of the first `event` for which `accept` holds. */
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
