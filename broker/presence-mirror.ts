// Publishes, retained on each device's presence topic, the presence the gateway believes.
//
// A device announces "online" (retained) when it connects, and its last will "offline" covers a
// connection that dies; but a phone that disconnects cleanly sends no will, and a phone that
// stays connected yet silent past DEVICE_OFFLINE_AFTER sends nothing at all. Operators watching
// MQTT then saw a retained "online" while the API said offline. Here every change of presence
// the gateway decides (connect, disconnect, keepalive timeout, end of a takeover, silence, and
// activity after silence) is published as the retained state, so the retained message and the
// API always agree.
import type { DevicePresence } from '../src/modules/devices/presence.ts';
import type { Logger } from '../src/common/logger.ts';
import { deviceTopic } from './topics.ts';

type PresenceState = 'online' | 'offline';

export class PresenceMirror {
  private readonly online = (deviceId: string) => this.announce(deviceId, 'online');
  private readonly offline = (deviceId: string) => this.announce(deviceId, 'offline');
  private readonly reaffirmed = (deviceId: string, online: boolean) => this.announce(deviceId, online ? 'online' : 'offline');

  constructor(
    private readonly presence: DevicePresence,
    /** Publishes retained with QoS 1, as the broker itself (no client). */
    private readonly publish: (topic: string, payload: string) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.presence.on('online', this.online);
    this.presence.on('offline', this.offline);
    this.presence.on('reaffirmed', this.reaffirmed);
  }

  /** Stops before the broker closes: a broker that is going away publishes nothing. */
  stop(): void {
    this.presence.off('online', this.online);
    this.presence.off('offline', this.offline);
    this.presence.off('reaffirmed', this.reaffirmed);
  }

  private announce(deviceId: string, state: PresenceState): void {
    this.publish(deviceTopic(deviceId, 'presence'), state).catch((error: unknown) =>
      this.logger.warn({ err: error, deviceId, state }, 'retained presence not published'),
    );
  }
}
