// Which devices are online right now. A device is online while it holds an MQTT connection
// and has shown activity within DEVICE_OFFLINE_AFTER (spec 1.6: devices report about every
// 5 minutes). This state lives in memory: after a restart every device is offline until it
// reconnects, which is the truth, since every connection died with the process.
import { EventEmitter } from 'node:events';

interface Presence {
  accountId: string;
  lastActivity: number;
}

type PresenceEvents = { online: [deviceId: string, accountId: string]; offline: [deviceId: string, accountId: string] };

export class DevicePresence extends EventEmitter<PresenceEvents> {
  private readonly connected = new Map<string, Presence>();
  // Per-account index, so choosing a device never scans the whole fleet.
  private readonly byAccount = new Map<string, Set<string>>();

  constructor(private readonly offlineAfterMs: number) {
    super();
  }

  /** The device connected or showed activity; emits "online" when it was not connected. */
  markActive(deviceId: string, accountId: string, now = Date.now()): void {
    const known = this.connected.get(deviceId);
    if (known) {
      known.lastActivity = now;
      return;
    }
    this.connected.set(deviceId, { accountId, lastActivity: now });
    let devices = this.byAccount.get(accountId);
    if (!devices) this.byAccount.set(accountId, (devices = new Set()));
    devices.add(deviceId);
    this.emit('online', deviceId, accountId);
  }

  markDisconnected(deviceId: string): void {
    const known = this.connected.get(deviceId);
    if (!known) return;
    this.connected.delete(deviceId);
    const devices = this.byAccount.get(known.accountId);
    devices?.delete(deviceId);
    if (devices?.size === 0) this.byAccount.delete(known.accountId);
    this.emit('offline', deviceId, known.accountId);
  }

  isOnline(deviceId: string, now = Date.now()): boolean {
    const presence = this.connected.get(deviceId);
    return presence !== undefined && now - presence.lastActivity < this.offlineAfterMs;
  }

  /** Ids of the account's devices that are online now. */
  onlineDevices(accountId: string, now = Date.now()): string[] {
    return [...(this.byAccount.get(accountId) ?? [])].filter((id) => this.isOnline(id, now));
  }
}
