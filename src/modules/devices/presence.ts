// Which devices are online right now. A device is online while it holds an MQTT connection
// and has shown activity within DEVICE_OFFLINE_AFTER (devices report about every
// 5 minutes). This state lives in memory: after a restart every device is offline until it
// reconnects, which is the truth, since every connection died with the process.
//
// With several nodes this node tracks the connections it holds, and asks a RemotePresence
// (remote-presence.ts, answered by src/cluster/presence.ts) about the others. A connection that
// moves between nodes is neither announced offline nor online (markMovedOut / markMovedIn); the
// phones of a node that died are announced offline by the node that noticed (announceOffline).
//
// device.offline is announced on the event seam when a device disconnects and when a connected
// device goes silent past DEVICE_OFFLINE_AFTER (found by a periodic check, start());
// device.online when it connects and when a silent device shows activity again. The two always alternate for a device. isOnline() is
// exact at any moment; the events follow within one check interval.
//
// Device ids are UUIDs and compare case-insensitively: every id is lower-cased on the way in,
// and the events carry the lower-case id.
import { systemClock, type Clock } from '../../common/clock.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DevicesEvents } from './domain-events.ts';
import type { RemotePresence } from './remote-presence.ts';

interface Presence {
  accountId: string;
  lastActivity: number;
}

/** Bounds of the silence check's interval (a tenth of DEVICE_OFFLINE_AFTER in between). */
const MIN_CHECK_INTERVAL_MS = 50;
const MAX_CHECK_INTERVAL_MS = 1_000;

export class DevicePresence {
  /**
   * Connected devices not (yet) announced silent, in order of their last activity, oldest first
   * (each activity moves its device to the end). The check looks at the head only, so it costs
   * the number of devices that went silent, not the size of the fleet.
   */
  private readonly active = new Map<string, Presence>();
  /** Connected devices announced silent (device.offline announced). */
  private readonly silent = new Map<string, Presence>();
  /** Disconnected devices: since when they are offline. */
  private readonly gone = new Map<string, number>();
  // Per-account index of connected devices, so choosing a device never scans the whole fleet.
  private readonly byAccount = new Map<string, Set<string>>();
  /** The latest activity appended to `active`; an earlier one (the clock stepped back) spoils the order. */
  private newest = -Infinity;
  private ordered = true;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `clock`: the time every method without an explicit `now` reads (the silence check too).
   * `remote`: several nodes, what this node knows of the devices the others hold.
   */
  constructor(
    private readonly offlineAfterMs: number,
    private readonly events: DomainEvents<DevicesEvents>,
    private readonly clock: Clock = systemClock,
    private readonly remote?: RemotePresence,
  ) {}

  private announce(event: 'device.online' | 'device.offline', deviceId: string, accountId: string): void {
    void this.events.emit(event, { deviceId, accountId });
  }

  /** Starts the periodic silence check (unref'ed; starting it twice changes nothing). */
  start(): void {
    if (this.timer) return;
    const every = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(this.offlineAfterMs / 10)));
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether "not online" is known for sure: always for a single node; for several, while they can be heard. */
  get current(): boolean {
    return this.remote?.current ?? true;
  }

  /**
   * The device's connection moved here from another node: connected now, but it never went
   * offline, so no "online" is announced (the node it left announces no "offline" either).
   */
  markMovedIn(deviceId: string, accountId: string, now = this.clock.now()): void {
    this.markActive(deviceId, accountId, now, false);
  }

  /** The device's connection here was taken over by another node: gone from here, not offline. */
  markMovedOut(deviceId: string, now = this.clock.now()): void {
    this.markDisconnected(deviceId, now, false);
  }

  /**
   * Announces a device offline that this node did not hold: its node died (its lease ran out),
   * and this node is the one that noticed. Records the time for failover.
   */
  announceOffline(deviceId: string, accountId: string, at = this.clock.now()): void {
    const id = deviceId.toLowerCase();
    if (this.active.has(id) || this.silent.has(id)) return;
    this.gone.set(id, at);
    this.announce('device.offline', id, accountId);
  }

  /** Announces again a device connected here that other nodes had announced offline (they lost sight of this node). */
  announceOnline(deviceId: string, accountId: string): void {
    const id = deviceId.toLowerCase();
    if (this.active.has(id)) this.announce('device.online', id, accountId);
  }

  /** Several nodes: states again where these devices, connected here, stand (see 'reaffirmed'). */
  reaffirm(deviceIds: string[]): void {
    for (const deviceId of deviceIds) {
      const id = deviceId.toLowerCase();
      if (this.active.has(id) || this.silent.has(id)) void this.events.emit('device.presence_restated', { deviceId: id, online: this.isOnline(id) });
    }
  }

  /** The device connected or showed activity; announces device.online when it was not connected, or silent. */
  markActive(deviceId: string, accountId: string, now = this.clock.now(), announce = true): void {
    const id = deviceId.toLowerCase();
    const active = this.active.get(id);
    if (active) {
      // Silent already, though the check has not announced it yet: announce both transitions.
      const missed = now - active.lastActivity >= this.offlineAfterMs;
      if (missed) this.announce('device.offline', id, active.accountId);
      this.active.delete(id);
      this.append(id, active, now);
      if (missed) this.announce('device.online', id, active.accountId);
      return;
    }
    const silent = this.silent.get(id);
    if (silent) {
      this.silent.delete(id);
      this.append(id, silent, now);
      this.announce('device.online', id, silent.accountId);
      return;
    }
    this.gone.delete(id);
    this.append(id, { accountId, lastActivity: now }, now);
    let devices = this.byAccount.get(accountId);
    if (!devices) this.byAccount.set(accountId, (devices = new Set()));
    devices.add(id);
    if (announce) this.announce('device.online', id, accountId);
  }

  /** The device's connection ended; announces device.offline unless it was already announced silent. */
  markDisconnected(deviceId: string, now = this.clock.now(), announce = true): void {
    const id = deviceId.toLowerCase();
    const active = this.active.get(id);
    const known = active ?? this.silent.get(id);
    if (!known) return;
    this.active.delete(id);
    this.silent.delete(id);
    const devices = this.byAccount.get(known.accountId);
    devices?.delete(id);
    if (devices?.size === 0) this.byAccount.delete(known.accountId);
    const silentSince = known.lastActivity + this.offlineAfterMs;
    this.gone.set(id, now < silentSince ? now : silentSince);
    if (active && announce) this.announce('device.offline', id, known.accountId);
  }

  isOnline(deviceId: string, now = this.clock.now()): boolean {
    const id = deviceId.toLowerCase();
    const presence = this.active.get(id) ?? this.silent.get(id);
    if (!presence) return this.remote?.isOnline(id) ?? false;
    return now - presence.lastActivity < this.offlineAfterMs;
  }

  /** Ids of the account's devices that are online now. */
  onlineDevices(accountId: string, now = this.clock.now()): string[] {
    return [...(this.byAccount.get(accountId) ?? [])].filter((id) => this.isOnline(id, now));
  }

  /**
   * Since when (ms since the epoch) the device is offline, disconnected or silent, as far as
   * this process knows; undefined while it is online and for a device not seen since the start.
   */
  offlineSince(deviceId: string, now = this.clock.now()): number | undefined {
    const id = deviceId.toLowerCase();
    const presence = this.active.get(id) ?? this.silent.get(id);
    if (!presence) {
      if (this.remote?.isOnline(id)) return undefined;
      return latest(this.gone.get(id), this.remote?.offlineSince(id));
    }
    const silentSince = presence.lastActivity + this.offlineAfterMs;
    return now < silentSince ? undefined : silentSince;
  }

  /**
   * Announces the connected devices that have gone silent ("offline"); returns how many. Runs
   * periodically once started; looks only at the devices that are due, plus one.
   */
  check(now = this.clock.now()): number {
    if (!this.ordered) this.sort();
    const due: [string, Presence][] = [];
    for (const entry of this.active) {
      if (now - entry[1].lastActivity < this.offlineAfterMs) break;
      due.push(entry);
    }
    let announced = 0;
    for (const [id, presence] of due) {
      // A listener of an earlier announcement may have changed this device meanwhile.
      if (this.active.get(id) !== presence || now - presence.lastActivity < this.offlineAfterMs) continue;
      this.active.delete(id);
      this.silent.set(id, presence);
      announced++;
      this.announce('device.offline', id, presence.accountId);
    }
    return announced;
  }

  private append(id: string, presence: Presence, now: number): void {
    presence.lastActivity = now;
    this.active.set(id, presence);
    if (now < this.newest) this.ordered = false;
    else this.newest = now;
  }

  /** Restores the order of `active` after activity was recorded out of order (rare). */
  private sort(): void {
    const entries = [...this.active].sort((a, b) => a[1].lastActivity - b[1].lastActivity);
    this.active.clear();
    for (const [id, presence] of entries) this.active.set(id, presence);
    this.newest = entries.length > 0 ? entries[entries.length - 1]![1].lastActivity : -Infinity;
    this.ordered = true;
  }
}

/** The later of two optional times. */
function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
