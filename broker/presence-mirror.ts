// Publishes, retained on each device's presence topic, the presence the gateway believes.
//
// A device announces "online" (retained) when it connects, and its last will "offline" covers a
// connection that dies; but a phone that disconnects cleanly sends no will, and a phone that
// stays connected yet silent past DEVICE_OFFLINE_AFTER sends nothing at all. Operators watching
// MQTT then saw a retained "online" while the API said offline. Here every change of presence
// the gateway decides (connect, disconnect, keepalive timeout, end of a takeover, silence, and
// activity after silence) is published as the retained state, so the retained message and the
// API always agree.
import type { Logger } from '../src/common/logger.ts';
import { deviceTopic } from './topics.ts';
import type { PresencePort, PresenceState } from './ports.ts';

export class PresenceMirror {
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly presence: PresencePort,
    /** Publishes retained with QoS 1, as the broker itself (no client). */
    private readonly publish: (topic: string, payload: string) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.unwatch ??= this.presence.watch((deviceId, state) => this.announce(deviceId, state));
  }

  /** Stops before the broker closes: a broker that is going away publishes nothing. */
  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private announce(deviceId: string, state: PresenceState): void {
    this.publish(deviceTopic(deviceId, 'presence'), state).catch((error: unknown) =>
      this.logger.warn({ err: error, deviceId, state }, 'retained presence not published'),
    );
  }
}
