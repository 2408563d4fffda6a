// A simulated Android device speaking the device protocol (docs/asyncapi.yaml) over a real MQTT
// connection, as the phone app does: it subscribes to its tasks and settings, reports
// processing -> sent -> delivered with configurable delays and failure rates, sends
// heartbeats, forwards received SMS, and reconnects after a drop or a refused CONNECT with
// backoff (docs/devices.md). The SMS id is its idempotency key: a task it already handled is
// re-acknowledged with its current status, never re-sent. A task revoked before it was sent is
// forgotten: handed out again later, it is a new task.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { deviceTopic } from '../../broker/topics.ts';
import { DEFAULT_BACKOFF, ReconnectBackoff, reconnectWithBackoff } from './reconnect.ts';
import { toneWav } from './wav.ts';
import type { SendTask } from '../modules/delivery/task.ts';

export type ReportStatus = 'processing' | 'sent' | 'delivered' | 'undelivered' | 'failed_send' | 'failed_delivery';

export interface SimulatedDeviceOptions {
  /** mqtt://host:port or ws://host:port/mqtt */
  brokerUrl: string;
  /** http://host:port of the gateway, where recordings are uploaded; none: calls are reported, never recorded. */
  apiUrl?: string;
  deviceId: string;
  token: string;
  name?: string;
  /** Milliseconds before each report; 0 reports at once. */
  delays?: { processing?: number; sent?: number; delivered?: number };
  /** Fractions 0..1 of tasks that fail to send, or are reported undelivered. */
  failSendRate?: number;
  undeliveredRate?: number;
  simCards?: { index: number; name_operator: string }[];
  heartbeatIntervalMs?: number;
  /** Tasks worked on at once; a real phone sends one SMS at a time. Default: no limit. */
  maxConcurrentTasks?: number;
  keepaliveSeconds?: number;
  /**
   * Delay before the first reconnect attempt (default 1 s), doubling with jitter per failed
   * attempt up to maxReconnectPeriodMs (default 60 s); 0: never reconnect, and connect() fails at
   * the first refusal.
   */
  reconnectPeriodMs?: number;
  maxReconnectPeriodMs?: number;
}

export interface SimulatedDeviceEvents {
  connected: [];
  /** A reconnect attempt starts (after a drop or a refused CONNECT). */
  reconnecting: [];
  /** The broker refused a CONNECT with this CONNACK return code (3: server unavailable, 5: not authorized). */
  refused: [returnCode: number];
  task: [task: SendTask, redelivered: boolean];
  report: [smsId: string, status: ReportStatus];
  settings: [settings: Record<string, unknown>];
  revoked: [smsId: string];
}

const RANK: Record<ReportStatus, number> = { processing: 1, sent: 2, failed_send: 2, delivered: 3, undelivered: 3, failed_delivery: 3 };

export class SimulatedDevice extends EventEmitter<SimulatedDeviceEvents> {
  private client: MqttClient | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** Latest status of every task this device has taken. */
  readonly handled = new Map<string, ReportStatus>();
  /** SMS ids the gateway revoked (took back before this phone acknowledged them), for tests to read. */
  readonly revoked = new Set<string>();
  /** The hand-out this phone works on for each SMS id; a revoke ends it unless the SMS was sent. */
  private readonly handouts = new Map<string, SendTask>();
  /** How many times each SMS was actually sent over the radio: must never exceed 1. */
  readonly sendCount = new Map<string, number>();
  settings: Record<string, unknown> | undefined;
  /** Reconnect attempts so far. */
  reconnects = 0;
  private active = 0;
  private readonly waiting: SendTask[] = [];
  /** Connections lost so far: a report that completes on a later connection than it went out on was sent again. */
  private connectionsLost = 0;
  /** The current connection's subscriptions are acknowledged: a revoke published from now on reaches this device. */
  private subscribed = false;
  private untilSubscribed = openGate();
  batteryLevel = 87;
  isCharging = false;

  constructor(readonly options: SimulatedDeviceOptions) {
    super();
  }

  get id(): string {
    return this.options.deviceId;
  }

  get connected(): boolean {
    return Boolean(this.client?.connected);
  }

  /**
   * Connects and resolves once subscribed and announced online. It keeps trying through refusals
   * and unreachable brokers (with backoff), unless reconnectPeriodMs is 0: then the first
   * refusal or error rejects.
   */
  async connect(): Promise<void> {
    const { deviceId, token } = this.options;
    const firstMs = this.options.reconnectPeriodMs ?? DEFAULT_BACKOFF.firstMs;
    const client = mqtt.connect(this.options.brokerUrl, {
      clientId: deviceId,
      username: deviceId,
      password: token,
      protocolVersion: 4,
      // A persistent session (docs/devices.md): the broker keeps QoS 2 exchanges in progress and
      // messages published while the device was away (a revoke) across a short drop.
      clean: false,
      keepalive: this.options.keepaliveSeconds ?? 60,
      reconnectPeriod: firstMs,
      reconnectOnConnackError: firstMs > 0,
      // announce() subscribes on every connect, as the app does; no second subscription.
      resubscribe: false,
      connectTimeout: 10_000,
      will: { topic: deviceTopic(deviceId, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
    });
    this.client = client;
    if (firstMs > 0) {
      const maxMs = Math.max(firstMs, this.options.maxReconnectPeriodMs ?? DEFAULT_BACKOFF.maxMs);
      const backoff = new ReconnectBackoff({ firstMs, maxMs, stableAfterMs: Math.min(DEFAULT_BACKOFF.stableAfterMs, 10 * firstMs) });
      reconnectWithBackoff(client, backoff, () => {
        this.reconnects++;
        this.emit('reconnecting');
      });
    }
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('close', () => {
      this.connectionsLost++;
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
      // As a phone app should: small packets go out at once (no Nagle delay).
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
    const interval = this.options.heartbeatIntervalMs ?? 60_000;
    this.heartbeatTimer = setInterval(() => void this.heartbeat().catch(() => {}), interval);
    this.heartbeatTimer.unref();
  }

  /** Sends what the app sends on every connect: subscriptions, presence, a heartbeat. */
  private async announce(): Promise<void> {
    const client = this.client!;
    const connection = this.connectionsLost;
    try {
      await client.subscribeAsync(
        {
          [deviceTopic(this.id, 'tasks')]: { qos: 1 },
          [deviceTopic(this.id, 'settings')]: { qos: 1 },
          [deviceTopic(this.id, 'revoke')]: { qos: 1 },
        },
      );
      if (connection === this.connectionsLost) {
        this.subscribed = true;
        this.untilSubscribed.open();
      }
      await client.publishAsync(deviceTopic(this.id, 'presence'), 'online', { qos: 1, retain: true });
      await this.heartbeat();
      this.emit('connected');
    } catch {
      // The connection dropped while announcing; the next connect announces again.
    }
  }

  async heartbeat(): Promise<void> {
    await this.client?.publishAsync(
      deviceTopic(this.id, 'heartbeat'),
      JSON.stringify({
        battery_level: this.batteryLevel,
        is_charging: this.isCharging,
        sim_cards: this.options.simCards ?? [{ index: 0, name_operator: 'Simulated Mobile' }],
        type: 'android',
        name: this.options.name ?? `sim-${this.id.slice(0, 8)}`,
        app_version: 'simulator',
      }),
      { qos: 1, retain: true },
    );
  }

  /** The phone received an SMS: forward it (the gateway keeps it only if forwarding is on). */
  async receive(phone: string, message: string): Promise<string> {
    const id = randomUUID();
    await this.client?.publishAsync(
      deviceTopic(this.id, 'incoming'),
      JSON.stringify({ id, phone, message, received_at: new Date().toISOString(), sim_slot: 0 }),
      { qos: 2 },
    );
    return id;
  }

  /**
   * A call as a phone with the app has it: reported to the call log, then, when the device's
   * record_calls setting is on and the call was answered, its recording (a short generated tone,
   * at most 3 s) uploaded over HTTP with the device's credentials. Answers the call id and the
   * upload's HTTP status (undefined when nothing was uploaded).
   */
  async makeCall(call: { direction: 'incoming' | 'outgoing' | 'missed'; phone: string; durationSeconds?: number }): Promise<{ id: string; uploaded?: number }> {
    const id = await this.reportCall(call);
    if (call.direction === 'missed' || this.settings?.record_calls !== true || !this.options.apiUrl) return { id };
    const audio = toneWav(Math.min(call.durationSeconds ?? 1, 3));
    const response = await fetch(new URL(`/api/device/v1/calls/${encodeURIComponent(id)}/recording`, this.options.apiUrl), {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`${this.id}:${this.options.token}`).toString('base64')}`, 'content-type': 'audio/wav' },
      body: audio,
    });
    await response.arrayBuffer();
    return { id, uploaded: response.status };
  }

  /**
   * A call was made, taken or missed: report it to the call log (QoS 2, so it resolves once the
   * gateway has stored it). The phone's call id is generated unless given; a repeat of an id is
   * stored once. Returns the call id.
   */
  async reportCall(call: {
    direction: 'incoming' | 'outgoing' | 'missed';
    phone: string;
    id?: string;
    simSlot?: number;
    startedAt?: Date;
    durationSeconds?: number;
  }): Promise<string> {
    const id = call.id ?? randomUUID();
    await this.client?.publishAsync(
      deviceTopic(this.id, 'calls'),
      JSON.stringify({
        id,
        direction: call.direction,
        phone: call.phone,
        ...(call.simSlot !== undefined ? { sim_slot: call.simSlot } : {}),
        started_at: (call.startedAt ?? new Date()).toISOString(),
        duration_seconds: call.durationSeconds ?? 0,
      }),
      { qos: 2 },
    );
    return id;
  }

  /** Publishes a raw message, for tests of what the gateway does with bad input. */
  async publishRaw(topic: string, payload: string | Buffer, retain = false): Promise<void> {
    await this.client?.publishAsync(topic, payload, { qos: 1, retain });
  }

  /** Cuts the connection without DISCONNECT, as a phone losing its network does. */
  drop(): void {
    this.client?.stream.destroy();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    // A device still trying to connect has nobody to say DISCONNECT to: end at once.
    await this.client?.endAsync(!this.client.connected);
  }

  /** Ends at once without DISCONNECT: the broker publishes the last will. */
  async kill(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    this.client?.stream.destroy();
    await this.client?.endAsync(true);
  }

  private onMessage(topic: string, payload: Buffer): void {
    if (topic === deviceTopic(this.id, 'settings')) {
      this.settings = JSON.parse(payload.toString()) as Record<string, unknown>;
      this.emit('settings', this.settings);
      return;
    }
    if (topic === deviceTopic(this.id, 'revoke')) {
      const { sms_id: smsId } = JSON.parse(payload.toString()) as { sms_id: string };
      this.revoked.add(smsId);
      // Not sent: the task is no longer this phone's at all. Should the gateway hand it out
      // again (the device was switched back on, the SMS came back from another phone), that is a
      // new task, to be sent once. One already sent stays known: never sent twice.
      if (!this.sendCount.has(smsId)) {
        this.handouts.delete(smsId);
        this.handled.delete(smsId);
      }
      this.emit('revoked', smsId);
      return;
    }
    if (topic !== deviceTopic(this.id, 'tasks')) return;
    const task = JSON.parse(payload.toString()) as SendTask;
    const known = this.handled.get(task.sms_id);
    this.emit('task', task, known !== undefined);
    if (known) {
      // Already handled: acknowledge again with where it stands; never send it twice.
      void this.report(task.sms_id, known);
      return;
    }
    // Taken from this moment: a redelivery is a duplicate even before "processing" is reported.
    this.handled.set(task.sms_id, 'processing');
    this.handouts.set(task.sms_id, task);
    this.waiting.push(task);
    this.next();
  }

  private next(): void {
    while (this.active < (this.options.maxConcurrentTasks ?? Number.POSITIVE_INFINITY) && this.waiting.length > 0) {
      const task = this.waiting.shift()!;
      this.active++;
      void this.work(task)
        .catch(() => {})
        .finally(() => {
          this.active--;
          this.next();
        });
    }
  }

  private async work(task: SendTask): Promise<void> {
    const delays = this.options.delays ?? {};
    // Still this hand-out's: no revoke ended it (a later hand-out of the same SMS is another task).
    const mine = () => this.handouts.get(task.sms_id) === task;
    await pause(delays.processing);
    if (!mine()) return;
    // The acknowledgement completes only after the gateway committed it, and a revoke for the
    // task (cancelled, expired, given to another phone) arrives before that: check, then send.
    await this.acknowledge(task.sms_id, mine);
    if (!mine()) return;
    if (Math.random() < (this.options.failSendRate ?? 0)) {
      await this.advance(task.sms_id, 'failed_send', delays.sent);
      return;
    }
    this.sendCount.set(task.sms_id, (this.sendCount.get(task.sms_id) ?? 0) + 1);
    await this.advance(task.sms_id, 'sent', delays.sent);
    const undelivered = Math.random() < (this.options.undeliveredRate ?? 0);
    await this.advance(task.sms_id, undelivered ? 'undelivered' : 'delivered', delays.delivered);
  }

  /**
   * Reports processing until an acknowledgement completes that a revoke would have preceded: one
   * published while this connection's revoke subscription was in place, and completed on that
   * same connection. After a lost connection MQTT.js sends the unacknowledged report again first
   * thing, before the subscriptions; a node that holds no session of this device (another node,
   * or one restarted) answers it with a revoke that reaches no one, then completes it. Such a
   * completion proves nothing: the report goes again once subscribed. The gateway answers a
   * repeated acknowledgement of a task still this device's with nothing, and of a task no longer
   * its own with a revoke.
   */
  private async acknowledge(smsId: string, mine: () => boolean): Promise<void> {
    for (;;) {
      await this.untilSubscribed.opened;
      // Lost again meanwhile: wait for the next connection's subscriptions.
      if (!this.subscribed) continue;
      const connection = this.connectionsLost;
      await this.report(smsId, 'processing');
      if (!mine() || connection === this.connectionsLost) return;
    }
  }

  private async advance(smsId: string, status: ReportStatus, delayMs?: number): Promise<void> {
    await pause(delayMs);
    const current = this.handled.get(smsId);
    if (current && RANK[current] >= RANK[status]) return;
    this.handled.set(smsId, status);
    await this.report(smsId, status);
  }

  private async report(smsId: string, status: ReportStatus): Promise<void> {
    // QoS 2: the gateway answers PUBREC once the report is committed; until then mqtt.js keeps
    // it, across reconnects.
    await this.client?.publishAsync(deviceTopic(this.id, 'status'), JSON.stringify({ sms_id: smsId, status }), { qos: 2 });
    this.emit('report', smsId, status);
  }
}

/** A promise opened once; a new gate replaces it when what it waits for is undone. */
function openGate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function pause(ms = 0): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}
