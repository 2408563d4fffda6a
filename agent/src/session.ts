// The device's MQTT session with the gateway: connecting as the contract asks (client id and
// username the device id, a persistent session, a last will), reconnecting for ever with backoff,
// and on every connect subscribing, announcing `online` and sending a heartbeat. It also knows
// which connection it is on, which the acknowledgement rule needs: an acknowledgement counts only
// if it completed on the connection whose revoke subscription was in place when it went out.
import { EventEmitter } from 'node:events';
import mqtt, { MqttClient, type IClientOptions } from 'mqtt';
import { ConnectionLog, describeFailure } from './connection-log.ts';
import { silentLogger, type AgentLogger } from './log.ts';
import { deviceTopic } from './protocol/topics.ts';
import { DEFAULT_BACKOFF, ReconnectBackoff, reconnectWithBackoff } from './reconnect.ts';
import { openTrustedTls } from './tls-trust.ts';

export interface SessionOptions {
  /** mqtt://host:port, mqtts://host:port (TLS), ws:// or wss://host:port/mqtt. */
  brokerUrl: string;
  deviceId: string;
  token: string;
  /** Certificates to trust for mqtts:// instead of the system's (a private CA), PEM. */
  ca?: string | Buffer;
  /**
   * The pairing URL's pin (tls-trust.ts): an mqtts:// certificate whose chain holds this key is
   * trusted too, so that a self-signed or private-CA certificate needs no --ca.
   */
  pin?: string;
  /** Where connection failures are told, once per reason (connection-log.ts). */
  logger?: AgentLogger;
  keepaliveSeconds?: number;
  /**
   * Delay before the first reconnect attempt (default 1 s), doubling with jitter per failed
   * attempt up to maxReconnectPeriodMs (default 60 s); 0: never reconnect, and connect() fails at
   * the first refusal.
   */
  reconnectPeriodMs?: number;
  maxReconnectPeriodMs?: number;
  /** Between heartbeats; default 5 minutes. */
  heartbeatIntervalMs?: number;
  /** Sent in the heartbeat as app_version. */
  appVersion?: string;
}

export interface SessionEvents {
  connected: [];
  reconnecting: [];
  refused: [returnCode: number];
  message: [topic: string, payload: Buffer];
}

export class DeviceSession extends EventEmitter<SessionEvents> {
  private client: MqttClient | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** Counts connections lost: an acknowledgement is judged by the connection it completed on. */
  connectionNumber = 0;
  /** Reconnect attempts so far. */
  reconnects = 0;
  /** Counts MQTT clients made: a new one (after suspend()) starts with an empty store of unacknowledged packets. */
  generation = 0;
  private subscribed = false;
  private untilSubscribed = openGate();
  private untilStarted = openGate();
  /** close() or crash(): for good. */
  private ended = false;

  constructor(
    /** brokerUrl may be changed between suspend() and connect(): a phone that moved to another network path. */
    readonly options: SessionOptions,
    private readonly heartbeatPayload: () => Promise<string>,
  ) {
    super();
  }

  get connected(): boolean {
    return Boolean(this.client?.connected);
  }

  /** The MQTT client, for what the session does not wrap (tests that publish raw bytes, cut the stream). */
  get mqttClient(): MqttClient | undefined {
    return this.client;
  }

  /**
   * Connects and resolves once subscribed and announced online. It keeps trying through refusals
   * and unreachable brokers (with backoff), unless reconnectPeriodMs is 0: then the first refusal
   * or error rejects.
   */
  async connect(): Promise<void> {
    const { deviceId, token } = this.options;
    const firstMs = this.options.reconnectPeriodMs ?? DEFAULT_BACKOFF.firstMs;
    const options: IClientOptions = {
      clientId: deviceId,
      username: deviceId,
      password: token,
      protocolVersion: 4,
      // The broker keeps QoS 2 exchanges in progress and messages published while the device
      // was away (a revoke) across a short drop.
      clean: false,
      keepalive: this.options.keepaliveSeconds ?? 60,
      reconnectPeriod: firstMs,
      reconnectOnConnackError: firstMs > 0,
      // announce() subscribes on every connect; no second subscription.
      resubscribe: false,
      // After a restart the whole fleet connects at once and waits in the gateway's accept queue
      // (up to 4096 deep), answered in order at a few hundred a second. A phone that gives up
      // sooner loses its place, doubles its backoff and comes back behind everyone else.
      connectTimeout: 30_000,
      will: { topic: deviceTopic(deviceId, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    };
    if (this.ended) throw new Error('the session is closed');
    const client = this.openClient(options);
    this.client = client;
    this.generation++;
    this.untilStarted.open();
    if (firstMs > 0) {
      const maxMs = Math.max(firstMs, this.options.maxReconnectPeriodMs ?? DEFAULT_BACKOFF.maxMs);
      const backoff = new ReconnectBackoff({ firstMs, maxMs, stableAfterMs: Math.min(DEFAULT_BACKOFF.stableAfterMs, 10 * firstMs) });
      reconnectWithBackoff(client, backoff, () => {
        this.reconnects++;
        this.emit('reconnecting');
      });
    }
    client.on('message', (topic, payload) => this.emit('message', topic, payload));
    this.logConnection(client);
    client.on('close', () => {
      this.connectionNumber++;
      if (!this.subscribed) return;
      this.subscribed = false;
      this.untilSubscribed = openGate();
    });
    client.on('error', (error) => {
      // Every error ends in a reconnect (or, without reconnects, fails connect()).
      const code = (error as { code?: unknown }).code;
      if (error.message.startsWith('Connection refused') && typeof code === 'number') this.emit('refused', code);
    });
    client.on('connect', () => {
      // Small packets go out at once (no Nagle delay).
      (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      void this.announce();
    });
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        client.end(true);
        reject(error);
      };
      if (firstMs === 0) client.once('error', fail);
      this.once('connected', () => {
        client.off('error', fail);
        resolve();
      });
    });
    const interval = this.options.heartbeatIntervalMs ?? 300_000;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => void this.heartbeat().catch(() => {}), interval);
    this.heartbeatTimer.unref();
  }

  /**
   * An MQTT client for the broker URL. mqtts:// gets a TLS socket of our own, which trusts the
   * pairing URL's pin and says why it refuses a certificate; ws:// and wss:// are MQTT.js's.
   */
  private openClient(options: IClientOptions): MqttClient {
    const url = new URL(this.options.brokerUrl);
    if (url.protocol !== 'mqtts:') return mqtt.connect(this.options.brokerUrl, options);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = url.port === '' ? 8883 : Number(url.port);
    const target = { host, port, ca: this.options.ca, pin: this.options.pin };
    return new MqttClient(() => openTrustedTls(target), { ...options, protocol: 'mqtts', host, port });
  }

  /**
   * Tells why attempts fail, once per reason, and when a connection is lost; a close the session
   * asked for (close, suspend) is not news.
   */
  private logConnection(client: MqttClient): void {
    const log = new ConnectionLog(this.options.logger ?? silentLogger, () => this.options.brokerUrl);
    let up = false;
    let cause: Error | undefined;
    client.on('error', (error) => (cause ??= error));
    client.on('connect', () => {
      up = true;
      cause = undefined;
      log.connected();
    });
    client.on('close', () => {
      const failure = cause;
      cause = undefined;
      const wasUp = up;
      up = false;
      if (this.ended || client.disconnecting || client.disconnected) return;
      if (wasUp) log.lost();
      else log.failed(describeFailure(failure));
    });
  }

  /** Resolves with the connection number once that connection's subscriptions are acknowledged. */
  async subscribedConnection(): Promise<number> {
    for (;;) {
      await this.untilSubscribed.opened;
      if (this.ended) throw new Error('the session is closed');
      // Lost again meanwhile: wait for the next connection's subscriptions.
      if (this.subscribed) return this.connectionNumber;
    }
  }

  async publish(topic: string, payload: string | Buffer, qos: 0 | 1 | 2, retain = false): Promise<void> {
    if (!this.client || this.ended) throw new Error('the session is not open');
    await this.client.publishAsync(topic, payload, { qos, retain });
  }

  /** Publishes once connect() has been called; MQTT.js keeps it across drops until acknowledged. */
  /** Publishes once connect() has been called; `handedOver` runs as the client takes it. */
  async publishWhenConnected(topic: string, payload: string, qos: 1 | 2, handedOver?: () => void): Promise<void> {
    await this.untilStarted.opened;
    const publishing = this.publish(topic, payload, qos);
    handedOver?.();
    await publishing;
  }

  async heartbeat(): Promise<void> {
    await this.client?.publishAsync(deviceTopic(this.options.deviceId, 'heartbeat'), await this.heartbeatPayload(), { qos: 1, retain: true });
  }

  /** Cuts the connection without DISCONNECT, as a phone losing its network does; it reconnects. */
  drop(): void {
    this.client?.stream.destroy();
  }

  async close(): Promise<void> {
    this.ended = true;
    clearInterval(this.heartbeatTimer);
    this.untilSubscribed.open();
    // A device still trying to connect has nobody to say DISCONNECT to: end at once.
    await this.client?.endAsync(!this.client.connected);
  }

  /** Ends at once without DISCONNECT, for good: the broker publishes the last will. */
  async crash(): Promise<void> {
    this.ended = true;
    await this.suspend();
  }

  /**
   * Loses the connection without DISCONNECT and does not reconnect until connect() is called
   * again, maybe to another broker URL: a phone whose network went and came back elsewhere. What
   * this client had not got acknowledged is gone with it; the agent publishes it again from its
   * journal on the next connection.
   */
  async suspend(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    // Not subscribed from now on, whenever the client's close event comes.
    if (this.subscribed) {
      this.subscribed = false;
      this.untilSubscribed = openGate();
    }
    if (this.ended) this.untilSubscribed.open();
    const client = this.client;
    client?.stream.destroy();
    await client?.endAsync(true);
  }

  /** What a device sends on every connect: subscriptions, presence, a heartbeat. */
  private async announce(): Promise<void> {
    const client = this.client!;
    const connection = this.connectionNumber;
    const id = this.options.deviceId;
    try {
      await client.subscribeAsync({
        [deviceTopic(id, 'tasks')]: { qos: 1 },
        [deviceTopic(id, 'settings')]: { qos: 1 },
        [deviceTopic(id, 'revoke')]: { qos: 1 },
      });
      if (connection === this.connectionNumber) {
        this.subscribed = true;
        this.untilSubscribed.open();
      }
      await client.publishAsync(deviceTopic(id, 'presence'), 'online', { qos: 1, retain: true });
      // A radio that cannot describe itself now must not keep the device from working.
      await this.heartbeat().catch(() => {});
      this.emit('connected');
    } catch {
      // The connection dropped while announcing; the next connect announces again.
    }
  }
}

/** A promise opened once; a new gate replaces it when what it waits for is undone. */
function openGate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
