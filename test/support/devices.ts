// Simulated devices for tests: registered through the real service, connected over real TCP.
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
export function nextEvent<A extends unknown[]>(
  emitter: { on(event: string, listener: (...args: A) => void): unknown; off(event: string, listener: (...args: A) => void): unknown },
  event: string,
  accept: (...args: A) => boolean = () => true,
  timeoutMs = 5_000,
): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    const listener = (...args: A) => {
      if (!accept(...args)) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(args);
    };
    emitter.on(event, listener);
  });
}
