// A device holds one connection. When it connects again (a quick reconnect here, or a move to
// another node) the new connection takes over: the old one is closed without taking the device
// offline, and the device is ready again once the new connection holds its task subscription
// (subscribed, or restored with a stored session: subscribe.ts). A
// connection that ends for good takes the device offline, unless (several nodes) another node
// holds the device's connection now.
import type { Aedes, Client } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import { identityOf, type DeviceIdentity } from './identity.ts';
import type { DeviceSessions } from './sessions.ts';
import { startTasksIfSubscribed } from './subscribe.ts';
import type { BrokerCluster, BrokerPorts } from './ports.ts';

export class Takeovers {
  /** Releases of claims on their way to Redis; a stop waits for them. */
  private readonly releasing = new Set<Promise<void>>();
  /** The node is stopping: with several nodes, its phones are handed over, not announced offline. */
  private stopping = false;

  constructor(
    private readonly sessions: DeviceSessions,
    private readonly ports: Pick<BrokerPorts, 'presence' | 'delivery' | 'devices'>,
    private readonly cluster: BrokerCluster | undefined,
    private readonly logger: Logger,
  ) {}

  install(aedes: Aedes): void {
    aedes.on('clientReady', (client) => this.connected(client));
    aedes.on('clientDisconnect', (client) => this.disconnected(client));
    aedes.on('ping', (_packet, client) => {
      const identity = identityOf(client);
      if (identity?.kind === 'device' && this.sessions.connections.get(identity.deviceId) === client) {
        this.ports.presence.markActive(identity.deviceId, identity.accountId);
      }
    });
    this.sessions.on('ended', (deviceId, client) => this.ended(deviceId, client));
  }

  /** The node is closing: with several nodes, its phones are handed over from now on, not announced offline. */
  closing(): void {
    this.stopping = true;
  }

  /** Resolves once the claims being released have reached Redis. */
  async released(): Promise<void> {
    await Promise.allSettled([...this.releasing]);
  }

  /**
   * The presence report "offline" (last will) arrived. Only the current connection's counts: a
   * last will of a connection that has been replaced meanwhile (a quick reconnect) arrives late
   * and must not drop its successor.
   */
  wentOffline(identity: DeviceIdentity): void {
    const client = this.sessions.connections.get(identity.deviceId);
    if (client && identityOf(client) === identity) this.sessions.drop(identity.deviceId, client);
  }

  /**
   * A heartbeat's row names a token other than the one this connection logged in with: the token
   * was replaced where no message reached this node (a command run beside it, without Redis), or
   * while this CONNECT was being checked. Closed as a replacement announced here closes it.
   */
  loggedInWithOldToken(identity: DeviceIdentity): void {
    const client = this.sessions.connections.get(identity.deviceId);
    if (!client || identityOf(client) !== identity) return;
    this.logger.info({ deviceId: identity.deviceId }, 'device connection closed: its token was replaced');
    this.sessions.disconnect(identity.deviceId);
  }

  private connected(client: Client): void {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    const { deviceId } = identity;
    const { connections, takingOver, ready } = this.sessions;
    if (takingOver.get(deviceId) === client) takingOver.delete(deviceId);
    const previous = connections.get(deviceId);
    connections.set(deviceId, client);
    if (previous && previous !== client) {
      // Aedes has closed it already (same client id); should one be left, this one replaces it.
      ready.delete(deviceId);
      previous.close();
    }
    if (this.sessions.claims.get(client)?.moved) {
      this.ports.presence.markMovedIn(deviceId, identity.accountId);
      this.logger.info({ deviceId }, 'device connected, moved here from another node');
    } else {
      this.ports.presence.markActive(deviceId, identity.accountId);
      this.logger.info({ deviceId }, 'device connected');
    }
    this.ports.devices.seen(deviceId);
    startTasksIfSubscribed(client, this.sessions, this.ports.delivery, identity.device, this.logger);
  }

  private disconnected(client: Client): void {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    const { deviceId } = identity;
    const { connections, takingOver, ready } = this.sessions;
    const successor = takingOver.get(deviceId);
    if (successor === client) {
      // A takeover that ended before its connection was ready: offline, unless the old one lives on.
      takingOver.delete(deviceId);
      if (!connections.has(deviceId)) this.ended(deviceId, client);
      this.ports.devices.seen(deviceId);
      return;
    }
    // After a takeover the old connection's disconnect must not take the new one offline.
    if (connections.get(deviceId) !== client) return;
    if (successor && !successor.closed) {
      // Closed for a takeover: the device stays online; it is ready again once the new
      // connection has subscribed to its tasks.
      connections.delete(deviceId);
      ready.delete(deviceId);
    } else {
      if (successor) takingOver.delete(deviceId);
      this.sessions.drop(deviceId, client);
    }
    this.ports.devices.seen(deviceId);
  }

  /** The device's connection here ended: delivery stops counting on it, and presence follows. */
  private ended(deviceId: string, client: Client): void {
    this.ports.delivery.deviceGone(deviceId);
    this.leave(deviceId, client);
  }

  /**
   * Offline, unless (several nodes) another node holds the device's connection now, or a newer
   * connection here does.
   */
  private leave(deviceId: string, client: Client): void {
    const claim = this.sessions.claims.get(client);
    const identity = identityOf(client);
    const { cluster } = this;
    const { presence } = this.ports;
    if (!cluster || !claim || identity?.kind !== 'device') {
      presence.markDisconnected(deviceId);
      this.logger.info({ deviceId }, 'device offline');
      return;
    }
    if (this.stopping) {
      // A rolling restart: the phone reconnects to another node, which finds this node's claim
      // and takes the phone over silently. One that does not come back within PRESENCE_LEASE is
      // announced offline by the node that reaps this one's lease.
      presence.markMovedOut(deviceId);
      return;
    }
    const release = cluster.ownership.release(deviceId, identity.accountId, claim.token).then((outcome) => {
      if (this.sessions.connections.has(deviceId)) return;
      if (outcome === 'moved') {
        presence.markMovedOut(deviceId);
        this.logger.info({ deviceId }, 'device moved to another node');
      } else {
        presence.markDisconnected(deviceId);
        this.logger.info({ deviceId }, 'device offline');
      }
    });
    this.releasing.add(release);
    void release.finally(() => this.releasing.delete(release));
  }
}
