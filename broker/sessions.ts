// Which connection each device holds on this node, and the way the gateway reaches devices through
// it (the dispatcher's DeviceLink). Made with the Aedes instance, before the services that publish
// to devices and before the packet handlers that fill it in (connect.ts, subscribe.ts, takeover.ts):
// so the dispatcher is given it when it is constructed, and nothing is attached afterwards.
import { EventEmitter } from 'node:events';
import type { Aedes, Client } from 'aedes';
import type { PacketSizeGuard } from './packet-guard.ts';
import { publishFromGateway, settingsOf, type OutgoingPacket } from './forward.ts';
import { deviceTopic } from './topics.ts';
import type { DeviceClaim, DeviceRecord, SettingsSources } from './ports.ts';

/** What the gateway knows of a connection before it has authenticated. */
export interface Connection {
  /** The client address as counted (clientAddressKey). */
  address: string;
  guard: PacketSizeGuard;
}

type SessionEvents = {
  /** A device subscribed to its tasks, so a task published now reaches it. */
  ready: [deviceId: string];
  /** The device's connection here ended for the gateway (closed, revoked, gone offline); takeover.ts takes it from there. */
  ended: [deviceId: string, client: Client];
};

export class DeviceSessions extends EventEmitter<SessionEvents> {
  /** The live connection of each device; a takeover replaces it. */
  readonly connections = new Map<string, Client>();
  /**
   * The newest authenticated CONNECT of a device that has a connection (or a takeover) already:
   * Aedes closes the old connection when it registers the new one, before the new one is ready,
   * and that close must not take the device offline.
   */
  readonly takingOver = new Map<string, Client>();
  /** Devices subscribed to their task topic. */
  readonly ready = new Set<string>();
  readonly connectionsOf = new WeakMap<Client, Connection>();
  /** Several nodes: each device connection's claim of its device (src/cluster/presence.ts). */
  readonly claims = new WeakMap<Client, DeviceClaim>();

  constructor(
    readonly aedes: Aedes,
    private readonly settingsSources?: SettingsSources,
  ) {
    super();
  }

  // DeviceLink -------------------------------------------------------------------------------

  isReady(deviceId: string): boolean {
    return this.ready.has(deviceId);
  }

  sendTask(deviceId: string, task: object): Promise<void> {
    return this.publish({ topic: deviceTopic(deviceId, 'tasks'), payload: JSON.stringify(task), qos: 1, retain: false });
  }

  /** Every settings push goes through here, so each carries the account's opt-out list as it is now. */
  async sendSettings(device: DeviceRecord): Promise<void> {
    const optedOut = await this.settingsSources?.optedOut(device.account_id);
    return this.publish({ topic: deviceTopic(device.id, 'settings'), payload: JSON.stringify(settingsOf(device, optedOut)), qos: 1, retain: true });
  }

  revokeTask(deviceId: string, smsId: string, reason: string): Promise<void> {
    return this.publish({ topic: deviceTopic(deviceId, 'revoke'), payload: JSON.stringify({ sms_id: smsId, reason }), qos: 1, retain: false });
  }

  /** A USSD request (dial, reply, cancel; docs/asyncapi.yaml, UssdRequest), like a task: QoS 1, not retained. */
  sendUssd(deviceId: string, request: object): Promise<void> {
    return this.publish({ topic: deviceTopic(deviceId, 'ussd'), payload: JSON.stringify(request), qos: 1, retain: false });
  }

  /** Closes the device's connection at once (revocation). */
  disconnect(deviceId: string): void {
    const client = this.connections.get(deviceId);
    if (!client) return;
    this.drop(deviceId, client);
    client.close();
  }

  // For the packet handlers ------------------------------------------------------------------

  publish(packet: OutgoingPacket): Promise<void> {
    return publishFromGateway(this.aedes, packet);
  }

  /** Connections that have taken tasks once: a second SUBSCRIBE to the tasks on one connection starts nothing again. */
  private readonly taking = new WeakSet<Client>();

  /**
   * The device's current connection `client` holds its task subscription. Answers false when that
   * connection was marked already (a restored subscription subscribed again): delivery has handed
   * it what waited then, and counting its tasks again from nothing would lose what is in flight.
   */
  markReady(deviceId: string, client: Client): boolean {
    if (this.taking.has(client)) return false;
    this.taking.add(client);
    this.ready.add(deviceId);
    this.emit('ready', deviceId);
    return true;
  }

  /** Whether this is the device's connection, and no takeover of it is under way. */
  isCurrent(deviceId: string, client: Client | null): boolean {
    const successor = this.takingOver.get(deviceId);
    return this.connections.get(deviceId) === client && (!successor || successor === client || successor.closed);
  }

  /** The device's connection `client` no longer counts: forgotten here, and announced as ended. */
  drop(deviceId: string, client: Client): void {
    if (this.connections.get(deviceId) !== client) return;
    this.connections.delete(deviceId);
    this.ready.delete(deviceId);
    this.emit('ended', deviceId, client);
  }
}
