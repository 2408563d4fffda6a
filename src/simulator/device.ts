// A simulated phone: the device agent (agent/) with its simulated radio, the same protocol code a
// real phone or modem runs. It adds what simulations and tests need around it: delays and
// failure rates, counts of what was taken and sent, calls with recordings uploaded over HTTP,
// raw publishes, and a dropped or killed connection.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { DeviceAgent } from '../../agent/src/agent.ts';
import type { ReportStatus, SendTask } from '../../agent/src/protocol/messages.ts';
import { SimulatedRadio } from '../../agent/src/radio/simulate.ts';
import type { OutgoingSms } from '../../agent/src/radio/radio.ts';
import { toneWav } from './wav.ts';
import { SimulatedUssd, type UssdAnswerOut } from './ussd.ts';
import { fetchParts, uploadPart, type FetchedPart } from './mms.ts';
import { withSimulatedNumbers, type SimulatedSim } from './sim-numbers.ts';

export type { ReportStatus } from '../../agent/src/protocol/messages.ts';

export interface SimulatedDeviceOptions {
  /** mqtt://host:port or ws://host:port/mqtt (mqtts://, wss:// with TLS) */
  brokerUrl: string;
  /** The CA that the broker's TLS certificate is checked against (a self-signed one, in tests); none: the system's. */
  ca?: string | Buffer;
  /** The pairing URL's pin: a certificate whose chain holds this key is trusted too (agent/src/tls-trust.ts). */
  pin?: string;
  /** http://host:port of the gateway, where recordings are uploaded; none: calls are reported, never recorded. */
  apiUrl?: string;
  deviceId: string;
  token: string;
  /** The name its heartbeats report; null: none, as a phone that does not say (the gateway keeps the registered one). */
  name?: string | null;
  /** Milliseconds before each report; 0 reports at once. */
  delays?: { processing?: number; sent?: number; delivered?: number };
  /** Fractions 0..1 of tasks that fail to send, or are reported undelivered. */
  failSendRate?: number;
  /** SIM slots whose every send fails, with the error code the phone reports (no_service...). */
  failSims?: ReadonlyMap<number, string>;
  undeliveredRate?: number;
  /** The SIMs it reports; each gets a simulated number of its own unless it names one (src/simulator/sim-numbers.ts). */
  simCards?: SimulatedSim[];
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
  /** Milliseconds the simulated network takes to answer a USSD request; default 0. */
  ussdDelayMs?: number;
  /**
   * The end-to-end passphrase (docs/encryption.md): encrypted tasks are decrypted with it; a wrong
   * one fails them with decryption_failed. One whose recipient is on the account's opt-out list
   * (which comes with the settings) fails with recipient_opted_out, unsent, as on a real phone.
   */
  passphrase?: string;
  /** With a passphrase: received SMS are forwarded encrypted. */
  encryptIncoming?: boolean;
  /**
   * How MMS tasks' parts are fetched from apiUrl before the MMS "goes out": whole (one GET each,
   * the default) or ranges (two Range requests each). Without apiUrl the phone sends no MMS.
   */
  mmsFetch?: 'whole' | 'ranges';
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
  /** Answered a USSD request (src/simulator/ussd.ts says what the simulated network answers). */
  ussd: [answer: UssdAnswerOut];
}

export class SimulatedDevice extends EventEmitter<SimulatedDeviceEvents> {
  readonly agent: DeviceAgent;
  readonly radio: SimulatedRadio;
  /** Latest status of every task this device holds. */
  readonly handled = new Map<string, ReportStatus>();
  /** SMS ids the gateway revoked (took back before this phone acknowledged them), for tests to read. */
  readonly revoked = new Set<string>();
  /** The parts fetched for each MMS task (SMS id), with their sizes and checksums, for tests to read. */
  readonly mmsFetched = new Map<string, FetchedPart[]>();
  private started = false;
  private readonly ussd: SimulatedUssd;

  constructor(readonly options: SimulatedDeviceOptions) {
    super();
    // SIM cards read from the options at each heartbeat: a test changes them on a running phone.
    this.radio = new SimulatedRadio({
      delays: { sent: options.delays?.sent, delivered: options.delays?.delivered },
      failSendRate: options.failSendRate,
      ...(options.failSims ? { failSims: options.failSims } : {}),
      undeliveredRate: options.undeliveredRate,
      get simCards() {
        return withSimulatedNumbers(options.simCards ?? [{ index: 0, name_operator: 'Simulated Mobile' }], options.deviceId);
      },
      ...(options.name === null ? {} : { name: options.name ?? `sim-${options.deviceId.slice(0, 8)}` }),
      ...(options.apiUrl
        ? {
            fetchMms: async (sms) => {
              const http = { apiUrl: options.apiUrl!, deviceId: options.deviceId, token: options.token };
              this.mmsFetched.set(sms.smsId, await fetchParts(http, sms.mms!, options.mmsFetch === 'ranges'));
            },
          }
        : {}),
    });
    this.agent = new DeviceAgent({
      brokerUrl: options.brokerUrl,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.pin ? { pin: options.pin } : {}),
      deviceId: options.deviceId,
      token: options.token,
      radio: this.radio,
      concurrency: options.maxConcurrentTasks ?? Number.POSITIVE_INFINITY,
      acknowledgeDelayMs: options.delays?.processing,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 60_000,
      keepaliveSeconds: options.keepaliveSeconds,
      reconnectPeriodMs: options.reconnectPeriodMs,
      maxReconnectPeriodMs: options.maxReconnectPeriodMs,
      appVersion: 'simulator',
      // USSD is answered beside the agent (below); recordings are uploaded where there is an apiUrl.
      alsoHandles: { ussd: true, callRecording: options.apiUrl !== undefined },
      ...(options.passphrase !== undefined ? { passphrase: options.passphrase, encryptIncoming: options.encryptIncoming ?? false } : {}),
    });
    this.agent.on('connected', () => this.emit('connected'));
    this.agent.on('reconnecting', () => this.emit('reconnecting'));
    this.agent.on('refused', (code) => this.emit('refused', code));
    this.agent.on('settings', (settings) => this.emit('settings', settings));
    this.agent.on('task', (task, again) => {
      if (!again) this.handled.set(task.sms_id, 'processing');
      this.emit('task', task, again);
    });
    this.agent.on('report', (smsId, status) => {
      const status_ = this.agent.statusOf(smsId);
      if (status_) this.handled.set(smsId, status_);
      this.emit('report', smsId, status);
    });
    this.agent.on('revoked', (smsId, _reason, forgotten) => {
      this.revoked.add(smsId);
      if (forgotten) this.handled.delete(smsId);
      this.emit('revoked', smsId);
    });
    // USSD is the simulator's, beside the agent: the agent leaves topics it does not know alone.
    this.ussd = new SimulatedUssd(options.deviceId);
    this.agent.on('connected', () => void this.subscribeUssd());
    this.agent.session.on('message', (topic, payload) => {
      if (topic.toLowerCase() === this.ussd.requestTopic) void this.answerUssd(payload);
    });
  }

  get id(): string {
    return this.options.deviceId;
  }

  get connected(): boolean {
    return this.agent.session.connected;
  }

  get settings(): Record<string, unknown> | undefined {
    return this.agent.settings;
  }

  /** What the radio sent for each SMS: the recipient and text decrypted, a data SMS's bytes and port. */
  get sent(): ReadonlyMap<string, OutgoingSms> {
    return this.radio.sent;
  }

  /** Its SIMs with their numbers, as its heartbeat reports them now. */
  get simCards(): SimulatedSim[] {
    return withSimulatedNumbers(this.options.simCards ?? [{ index: 0, name_operator: 'Simulated Mobile' }], this.options.deviceId);
  }

  /** How many times each SMS was actually sent over the radio: must never exceed 1. */
  get sendCount(): Map<string, number> {
    return this.radio.sendCount;
  }

  /** Reconnect attempts so far. */
  get reconnects(): number {
    return this.agent.session.reconnects;
  }

  get batteryLevel(): number {
    return this.radio.batteryLevel;
  }

  set batteryLevel(level: number) {
    this.radio.batteryLevel = level;
  }

  get isCharging(): boolean {
    return this.radio.isCharging;
  }

  set isCharging(charging: boolean) {
    this.radio.isCharging = charging;
  }

  /**
   * Connects and resolves once subscribed and announced online. It keeps trying through refusals
   * and unreachable brokers (with backoff), unless reconnectPeriodMs is 0: then the first
   * refusal or error rejects.
   */
  async connect(): Promise<void> {
    // A phone killed and connected again keeps what it had (the journal); it may have moved to
    // another broker URL meanwhile.
    this.agent.session.options.brokerUrl = this.options.brokerUrl;
    if (this.started) {
      await this.agent.reconnect();
    } else {
      this.started = true;
      await this.agent.start();
    }
    await this.subscribeUssd();
  }

  private async subscribeUssd(): Promise<void> {
    await this.agent.session.mqttClient?.subscribeAsync(this.ussd.requestTopic, { qos: 1 }).catch(() => undefined);
  }

  private async answerUssd(payload: Buffer): Promise<void> {
    const answer = this.ussd.answer(payload);
    if (!answer) return;
    if (this.options.ussdDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.ussdDelayMs));
    // QoS 2: acknowledged once the gateway has applied it.
    await this.agent.session.publish(this.ussd.answerTopic, JSON.stringify(answer), 2).catch(() => undefined);
    this.emit('ussd', answer);
  }

  async heartbeat(): Promise<void> {
    await this.agent.session.heartbeat();
  }

  /**
   * The phone received an SMS: forwarded while forward_incoming_sms is on (resolves once the
   * gateway acknowledged it), kept by the agent while it is off (resolves once kept; forwarded when it comes on).
   * It arrives on SIM slot 0 unless another is named.
   */
  async receive(phone: string, message: string, options: { isEncrypted?: boolean; simSlot?: number } = {}): Promise<string> {
    const id = randomUUID();
    await this.agent.forwardIncoming({ id, phone, message, receivedAt: new Date(), simSlot: options.simSlot ?? 0, ...(options.isEncrypted ? { isEncrypted: true } : {}) });
    return id;
  }

  /**
   * The phone received an MMS: reported on its mms topic (QoS 2, so it resolves once the gateway
   * stored it), then each part uploaded over HTTP with the device's credentials. The MMS id is
   * generated unless given (a repeat of an id is stored once); `upload: false` reports only.
   * Answers the id and each upload's HTTP status and answer.
   */
  async receiveMms(mms: {
    phone: string;
    id?: string;
    subject?: string;
    message?: string;
    recipients?: string[];
    parts: { id?: string; contentType: string; bytes: Buffer }[];
    upload?: boolean;
  }): Promise<{ id: string; uploads: { status: number; body: unknown }[] }> {
    const id = mms.id ?? randomUUID();
    const parts = mms.parts.map((part, index) => ({ ...part, id: part.id ?? `part-${index}` }));
    const report = {
      id,
      phone: mms.phone,
      received_at: new Date().toISOString(),
      sim_slot: 0,
      parts: parts.map((part) => ({ id: part.id, content_type: part.contentType, size: part.bytes.length })),
      ...(mms.subject !== undefined ? { subject: mms.subject } : {}),
      ...(mms.message !== undefined ? { message: mms.message } : {}),
      ...(mms.recipients !== undefined ? { recipients: mms.recipients } : {}),
    };
    await this.agent.session.publish(`sms-gateway/v1/devices/${this.id}/mms`, JSON.stringify(report), 2);
    const uploads: { status: number; body: unknown }[] = [];
    if (mms.upload === false || !this.options.apiUrl) return { id, uploads };
    const http = { apiUrl: this.options.apiUrl, deviceId: this.id, token: this.options.token };
    for (const part of parts) uploads.push(await uploadPart(http, id, part.id, part.bytes));
    return { id, uploads };
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
    await this.agent.forwardCall({
      id,
      direction: call.direction,
      phone: call.phone,
      startedAt: call.startedAt ?? new Date(),
      durationSeconds: call.durationSeconds ?? 0,
      ...(call.simSlot !== undefined ? { simSlot: call.simSlot } : {}),
    });
    return id;
  }

  /** Publishes a raw message, for tests of what the gateway does with bad input. */
  async publishRaw(topic: string, payload: string | Buffer, retain = false): Promise<void> {
    await this.agent.session.publish(topic, payload, 1, retain);
  }

  /** Cuts the connection without DISCONNECT, as a phone losing its network does. */
  drop(): void {
    this.agent.session.drop();
  }

  async stop(): Promise<void> {
    await this.agent.stop();
  }

  /**
   * Ends the connection at once without DISCONNECT (the broker publishes the last will), as a
   * phone losing its network does; connect() brings it back with everything it held.
   */
  async kill(): Promise<void> {
    await this.agent.session.suspend();
  }
}
