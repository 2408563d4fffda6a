// Raw mqtt.js clients for tests of what the broker allows and refuses, and of devices whose
// every packet a test controls (no automatic reports, no reconnect). Every client a test opens
// is tracked by a RawClients, whose endAll() an afterEach calls.
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Gateway } from '../../src/gateway.ts';
import { deviceTopic, type TopicKind } from '../../broker/topics.ts';

/** What mqtt.js rejects a refused CONNECT with: `code` is the CONNACK return code. */
export type ConnectError = Error & { code?: number };

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  /** The QoS it was delivered at. */
  qos: number;
}

/** A connected raw client and what it has seen since it connected. */
export interface RawClient {
  client: MqttClient;
  /** Every message delivered to it, in order. */
  messages: Received[];
  /** True once its connection closed. */
  readonly closed: boolean;
  /** Resolves when the connection closes (at once if it already has); fails after timeoutMs. */
  whenClosed(timeoutMs?: number): Promise<void>;
  /** Resolves with the first message (already received or still to come) for which accept holds. */
  nextMessage(accept: (message: Received) => boolean, timeoutMs?: number): Promise<Received>;
  /** Subscribes and returns the granted QoS of each filter, 128 for a refused one. */
  subscribe(filters: string | string[], qos?: 0 | 1 | 2): Promise<number[]>;
  /** Publishes with QoS 2 (PUBREC comes only after the gateway handled it) and awaits PUBCOMP. */
  publish(topic: string, payload: string | Buffer, options?: { qos?: 0 | 1 | 2; retain?: boolean }): Promise<void>;
}

export class RawClients {
  private readonly clients = new Set<MqttClient>();

  constructor(private readonly url: () => string) {}

  /** Connects; resolves once CONNACK accepted it, rejects with the mqtt.js error otherwise. */
  connect(options: IClientOptions, timeoutMs = 5_000): Promise<RawClient> {
    const client = mqtt.connect(this.url(), {
      protocolVersion: 4,
      clean: true,
      keepalive: 60,
      reconnectPeriod: 0,
      connectTimeout: timeoutMs,
      ...options,
    });
    this.clients.add(client);
    const raw = wrap(client);
    return new Promise((resolve, reject) => {
      const finish = (error?: ConnectError) => {
        clearTimeout(timer);
        client.off('connect', onConnect);
        client.off('error', onError);
        client.off('close', onClose);
        if (!error) return resolve(raw);
        client.end(true);
        reject(error);
      };
      const onConnect = () => finish();
      const onError = (error: ConnectError) => finish(error);
      const onClose = () => finish(new Error('the connection closed before CONNACK'));
      const timer = setTimeout(() => finish(new Error(`no CONNACK within ${timeoutMs} ms`)), timeoutMs);
      client.on('connect', onConnect);
      client.on('error', onError);
      client.on('close', onClose);
    });
  }

  /**
   * Connects as the device (client id and username the device id, password its token) and
   * resolves once the gateway has taken the connection in: Aedes sends CONNACK before it
   * announces the client, and (with a clean session, nothing kept to write out) handles packets
   * that follow CONNACK only after announcing it, so one round trip (an UNSUBSCRIBE, which changes
   * nothing) is the barrier. A stored session's kept messages go out between the two, and a packet
   * may be handled before the announcement (test/device-channel/stored-session-reconnect.test.ts).
   */
  async device(deviceId: string, token: string, options: IClientOptions = {}): Promise<RawClient> {
    const raw = await this.connect({
      clientId: deviceId,
      username: deviceId,
      password: token,
      will: { topic: deviceTopic(deviceId, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
      ...options,
    });
    await raw.client.unsubscribeAsync(deviceTopic(deviceId, 'tasks'));
    return raw;
  }

  /** Expects the CONNECT to be refused; resolves with the error mqtt.js raised. */
  async refused(options: IClientOptions): Promise<ConnectError> {
    try {
      await this.connect(options);
    } catch (error) {
      return error as ConnectError;
    }
    throw new Error(`the broker accepted client id ${options.clientId}`);
  }

  async endAll(): Promise<void> {
    const clients = [...this.clients];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.endAsync(true).catch(() => undefined)));
  }
}

/** The MQTT URL of the gateway's TCP listener. */
export function mqttUrl(gateway: Gateway): string {
  return `mqtt://127.0.0.1:${gateway.mqttPort}`;
}

export function topic(deviceId: string, kind: TopicKind | string): string {
  return deviceTopic(deviceId, kind as TopicKind);
}

/**
 * Subscribes the raw device to its tasks: from then on it is ready, and claims SMS when it has
 * room. The gateway marks it ready before it answers SUBACK, so on return it may claim.
 */
export async function takeTasks(raw: RawClient, deviceId: string): Promise<void> {
  const granted = await raw.subscribe(topic(deviceId, 'tasks'));
  if (granted[0] === 128) throw new Error(`the broker refused ${deviceId} its own task topic`);
}

/** The send tasks the raw device has received so far, in order, parsed. */
export function tasksOf(raw: RawClient, deviceId: string): { sms_id: string; phone: string; message: string; sim: number }[] {
  return raw.messages.filter((message) => message.topic === topic(deviceId, 'tasks')).map((message) => JSON.parse(message.payload));
}

/** Resolves with the task for `smsId` (already received or still to come) at the raw device. */
export async function nextTask(raw: RawClient, deviceId: string, smsId: string, timeoutMs = 5_000): Promise<{ sms_id: string; phone: string; message: string; sim: number }> {
  const received = await raw.nextMessage(
    (message) => message.topic === topic(deviceId, 'tasks') && (JSON.parse(message.payload) as { sms_id: string }).sms_id === smsId,
    timeoutMs,
  );
  return JSON.parse(received.payload);
}

function wrap(client: MqttClient): RawClient {
  const messages: Received[] = [];
  let closed = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain, qos: packet.qos });
    notify();
  });
  client.on('close', () => {
    closed = true;
    notify();
  });
  // After CONNACK a dropped connection may surface as an error; a test looks at `closed`.
  client.on('error', () => undefined);

  function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const watcher = () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(watcher);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(watcher);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      waiters.add(watcher);
      watcher();
    });
  }

  return {
    client,
    messages,
    get closed() {
      return closed;
    },
    whenClosed: (timeoutMs = 2_000) => waitFor('the connection to close', timeoutMs, () => (closed ? true : undefined)).then(() => undefined),
    nextMessage: (accept, timeoutMs = 2_000) => waitFor('a message', timeoutMs, () => messages.find(accept)),
    async subscribe(filters, qos = 1) {
      const list = Array.isArray(filters) ? filters : [filters];
      try {
        const granted = await client.subscribeAsync(Object.fromEntries(list.map((filter) => [filter, { qos }])));
        return granted.map((grant) => grant.qos);
      } catch (error) {
        const packet = (error as { packet?: { granted?: number[] } }).packet;
        if (packet?.granted) return packet.granted;
        throw error;
      }
    },
    async publish(topic, payload, options = {}) {
      // A connection the broker closes never acknowledges: fail at once instead of hanging.
      const cutMessage = `the connection closed before the publish to ${topic} completed`;
      if (closed) throw new Error(cutMessage);
      let onClose: () => void = () => undefined;
      const cut = new Promise<never>((_, reject) => {
        onClose = () => reject(new Error(cutMessage));
        client.once('close', onClose);
      });
      try {
        await Promise.race([client.publishAsync(topic, payload, { qos: options.qos ?? 2, retain: options.retain ?? false }), cut]);
      } finally {
        client.off('close', onClose);
      }
    },
  };
}
