// CONNECT: the keepalive the gateway allows, and who is on the other end (identity.ts). A phone
// presents its device id and token, an operator an API key holding devices:monitor. Refusals
// count with the failed authentications the HTTP API counts (per address and credential), and
// past a limit they come only after a delay. While the database is unreachable, or the process
// is saturated, a CONNECT is answered "server unavailable": the phone backs off and comes back.
import type { Aedes, AuthenticateError, Client } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import type { AuthAttempt } from '../src/common/auth-throttle.ts';
import { secretMatches } from '../src/common/secrets.ts';
import { isUuid } from '../src/common/object-id.ts';
import { keyPrefix } from '../src/modules/api-keys/key-format.ts';
import { OutageNotice } from '../src/common/outage-notice.ts';
import { canonicalDeviceId, DeviceIdentity, OPERATOR_CLIENT_PREFIX, setIdentity } from './identity.ts';
import { keepLessOfConnect } from './connect-leftovers.ts';
import { applyKeepaliveLimit } from './keepalive.ts';
import type { RefusalLog } from './refusal-log.ts';
import type { DeviceSessions } from './sessions.ts';
import type { BrokerCluster, BrokerPorts } from './ports.ts';

/** CONNACK return code 5 (MQTT 3.1.1 table 3.1): "not authorized". */
const NOT_AUTHORIZED = 5;
/** CONNACK return code 3: "server unavailable". */
const SERVER_UNAVAILABLE = 3;

export interface ConnectOptions {
  /** How long a CONNECT from a throttled address waits for its CONNACK 5. */
  refusalDelayMs: number;
  cluster: BrokerCluster | undefined;
}

export class ConnectHandler {
  /** CONNECTs refused with code 3 while the database is unreachable: one log line per outage. */
  private readonly databaseOutage: OutageNotice;

  constructor(
    private readonly sessions: DeviceSessions,
    private readonly ports: Pick<BrokerPorts, 'auth' | 'devices' | 'admission'>,
    private readonly refusals: RefusalLog,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly options: ConnectOptions,
  ) {
    this.databaseOutage = new OutageNotice(logger, 'device CONNECTs answered CONNACK 3 (server unavailable)');
  }

  install(aedes: Aedes): void {
    aedes.preConnect = (client, packet, done) => {
      // Neither the parser nor the will keeps this CONNECT's bytes, the device's token among them,
      // for as long as the connection lasts (connect-leftovers.ts).
      keepLessOfConnect(client, packet);
      const { keepalive, adjusted } = applyKeepaliveLimit(packet.keepalive ?? 0);
      if (adjusted) {
        this.metrics.count('mqtt_keepalive_adjusted_total', 'CONNECTs whose keepalive the gateway replaced with its own limit', { requested: adjusted });
        this.logger.info({ clientId: packet.clientId?.slice(0, 64), requested: packet.keepalive, applied: keepalive }, 'mqtt keepalive replaced by the gateway limit');
        packet.keepalive = keepalive;
      }
      done(null, true);
    };
    aedes.authenticate = (client, username, password, done) => {
      // CONNACK 3: the device backs off and connects again (docs/devices.md), nothing is lost.
      const unavailable = (reason: 'overloaded' | 'database_unavailable' | 'error') => {
        this.metrics.count('mqtt_connect_unavailable_total', 'CONNECTs answered "server unavailable" (CONNACK 3)', { reason });
        const refused = new Error('server unavailable') as AuthenticateError;
        refused.returnCode = SERVER_UNAVAILABLE;
        done(refused, false);
      };
      // A saturated process takes no new sessions: a reconnect storm waits instead of deepening it.
      if (this.ports.admission.saturated()) return unavailable('overloaded');
      this.authenticate(client, username, password).then(
        (ok) => {
          this.databaseOutage.succeeded();
          if (ok) return done(null, true);
          const error = new Error('not authorized') as AuthenticateError;
          error.returnCode = NOT_AUTHORIZED;
          done(error, false);
        },
        (error: unknown) => {
          // An outage is logged once, not once per device of a reconnecting fleet.
          if (this.databaseOutage.failed(error)) return unavailable('database_unavailable');
          this.logger.error({ err: error }, 'mqtt authentication failed with an error');
          unavailable('error');
        },
      );
    };
  }

  /** The account's devices an operator may watch, read again (on every SUBSCRIBE too). */
  async refreshOperatorDevices(identity: { accountId: string; devices: Set<string> }): Promise<void> {
    const ids = await this.ports.devices.ofAccount(identity.accountId);
    identity.devices.clear();
    for (const id of ids) identity.devices.add(id);
  }

  private async authenticate(client: Client, username: string | undefined, password: Buffer | undefined): Promise<boolean> {
    const connection = this.sessions.connectionsOf.get(client);
    const address = connection?.address;
    const throttle = this.ports.auth;
    const secret = password?.toString('utf8') ?? '';
    // An operator presents an API key (counted with the API's keys), a phone its device token
    // (counted with the phones' own failures, never with an API client's).
    const operator = client.id?.startsWith(OPERATOR_CLIENT_PREFIX) ?? false;
    const attempt: AuthAttempt = operator
      ? { channel: 'api_key', address, credential: keyPrefix(secret) }
      : { channel: 'device', address, credential: username && isUuid(username) ? username.toLowerCase() : undefined };
    // Refusals past a limit come only after a delay: a guesser's loop slows down, and the
    // per-address connection cap bounds how many it can hold waiting.
    const slowDown = () => new Promise((resolve) => setTimeout(resolve, this.options.refusalDelayMs).unref());
    if (throttle.refusedFor(attempt) > 0) {
      // Refused unchecked: no lookup, no hash.
      await slowDown();
      this.refusals.refused(address ?? 'unknown', 'auth_throttled');
      return false;
    }
    const refuse = async (reason: string, guess = true) => {
      this.metrics.count('mqtt_auth_failures_total', 'MQTT connections refused at CONNECT', { reason });
      this.logger.warn({ clientId: client.id?.slice(0, 64), reason }, 'mqtt connection refused');
      // A key that is valid but lacks the permission is no guess: it does not count.
      if (guess && throttle.failed(attempt) > 0) await slowDown();
      return false;
    };
    const accepted = () => {
      connection?.guard.authenticated();
      return true;
    };
    if (operator) {
      const key = await this.ports.auth.operatorKey(secret);
      if (!key) return refuse('bad_api_key');
      if (!key.mayMonitor) return refuse('missing_devices_monitor', false);
      const identity = { kind: 'operator' as const, accountId: key.accountId, keyId: key.keyId, devices: new Set<string>() };
      await this.refreshOperatorDevices(identity);
      setIdentity(client, identity);
      return accepted();
    }
    // Device ids compare case-insensitively (they are UUIDs).
    if (!username || !client.id || username.toLowerCase() !== client.id.toLowerCase() || !isUuid(username)) return refuse('bad_client_id');
    const device = await this.ports.devices.find(username);
    if (!device || !device.token_hash || !secretMatches(secret, device.token_hash)) return refuse('bad_device_credentials');
    const deviceId = canonicalDeviceId(device.id);
    // One client id per device, whatever its case: Aedes then closes a live connection of the
    // device when it registers this one ([MQTT-3.1.4-2]), and keeps one session's state.
    client.id = deviceId;
    // The identity keeps a small record of the row, not the row itself (identity.ts).
    setIdentity(client, new DeviceIdentity(deviceId, device.account_id, device.token_hash, device));
    const { cluster } = this.options;
    if (cluster) {
      // Written before Aedes announces the new client: the node holding the device's older
      // connection, told to close it, then finds this node named, and announces no offline.
      const claim = await cluster.ownership.claim(deviceId, device.account_id);
      this.sessions.claims.set(client, claim);
      if (client.closed) {
        void cluster.ownership.release(deviceId, device.account_id, claim.token);
        return false;
      }
    }
    const { connections, takingOver } = this.sessions;
    if (!client.closed && (connections.has(deviceId) || takingOver.has(deviceId))) takingOver.set(deviceId, client);
    return accepted();
  }
}
