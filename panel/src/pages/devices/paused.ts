// Whether a device is paused after failed sends.
import type { Device } from '../../api/types.ts';

/** The circuit breaker's pause is in force (a past paused_until only tells of the last pause). */
export function isPaused(device: Device, now = Date.now()): boolean {
  return device.paused_until !== null && new Date(device.paused_until).getTime() > now;
}
