// One device: the MQTT session with the gateway on one side, a radio on the other, the journal
// between them. The rules it follows (docs/devices.md) in the order an SMS meets them:
// - a task's sms_id is its idempotency key: a task seen before is answered with the status it
//   reached, never worked again;
// - `processing` is the acknowledgement; the SMS goes to the radio only once that publish has
//   completed on a connection whose revoke subscription was in place, and no revoke came first;
// - "handed to the radio" is on disk before the radio gets the SMS: after a crash such a task is
//   reported as of unknown outcome, never sent again;
// - every later report, received SMS and call is in the journal before it is published (QoS 2),
//   and leaves it only when the gateway acknowledged it: a restart publishes what is left;
// - a received SMS is forwarded only while the settings say forward_incoming_sms; until then it is
//   kept in the journal, and forwarded, oldest first, once they do.
import { EventEmitter } from 'node:events';
import { Journal, type OutboxItem, type TaskRecord } from './journal/journal.ts';
import { MAX_ERROR_LENGTH, parseRevoke, parseSettings, parseTask, STATUS_RANK, type DeviceSettings, type ReportStatus, type SendTask, type StatusReport } from './protocol/messages.ts';
import { deviceTopic, inboundKind, type OutboundTopic } from './protocol/topics.ts';
import { DeviceSession, type SessionOptions } from './session.ts';
import type { DeliveryReport, Radio, RadioHandlers, RadioMemory, ReceivedCall, ReceivedSms, RadioStatus, SendResult } from './radio/radio.ts';
import { silentLogger, type AgentLogger } from './log.ts';
import { decrypt, encrypt, passphraseFingerprint } from './protocol/end-to-end.ts';
import { parseOptedOut, type OptedOutNumbers } from './protocol/opted-out.ts';

/** How long stop() waits for the radio to finish the sends it has. */
const STOP_WAIT_MS = 60_000;

/** Delivery reports kept while the send they belong to may still be recorded. */
const MAX_EARLY_REPORTS = 256;

/**
 * Received SMS kept at most while forwarding is off. Past it the radio is told the agent did not
 * take the next one, so the radio keeps it (on the SIM, or unread in the phone's inbox) and hands
 * it over again later: nothing is dropped, and the journal stays a size a phone can replay.
 */
export const MAX_HELD_INCOMING = 10_000;

/**
 * How long after the count of kept SMS changed a heartbeat tells the gateway: one heartbeat for a
 * burst of SMS, not one each.
 */
const HELD_HEARTBEAT_DELAY_MS = 1_000;

/** Why a task is not handed to the radio: the report's error, and its code when it has one. */
interface Refusal {
  error: string;
  error_code?: string;
}

export interface DeviceAgentOptions extends SessionOptions {
  radio: Radio;
  /** Where the agent keeps what it must not forget; none: memory only (a simulation). */
  journal?: Journal;
  /** Tasks worked on at once. A radio sends one SMS at a time: default 1. */
  concurrency?: number;
  /** Ask the network for delivery reports (a radio that cannot ignores it). Default true. */
  deliveryReports?: boolean;
  /** A pause before acknowledging each task, for simulations of a slow phone. */
  acknowledgeDelayMs?: number;
  logger?: AgentLogger;
  /**
   * The end-to-end passphrase shared with the clients (protocol/end-to-end.ts): an encrypted
   * task's recipient and text are decrypted with it just before the radio gets them. None: such
   * a task fails with decryption_failed.
   */
  passphrase?: string;
  /** With a passphrase: received SMS are forwarded encrypted with it, so the gateway cannot read them. */
  encryptIncoming?: boolean;
  /**
   * What the program around the agent does itself on the agent's session, beyond the radio (the
   * simulator answers USSD and uploads call recordings): said in the heartbeat's capabilities.
   * The agent alone does neither, whatever its radio.
   */
  alsoHandles?: { ussd?: boolean; callRecording?: boolean };
}

export interface DeviceAgentEvents {
  connected: [];
  reconnecting: [];
  refused: [returnCode: number];
  /** A task arrived; `again`: it was seen before, and is only answered with its status. */
  task: [task: SendTask, again: boolean];
  report: [smsId: string, status: ReportStatus];
  settings: [settings: DeviceSettings];
  /** The gateway took the task back; `forgotten`: it was not sent, and is no longer this device's. */
  revoked: [smsId: string, reason: string, forgotten: boolean];
  /** A message from the gateway that fails its checks: dropped. */
  rejected: [topic: string, why: string];
}

export class DeviceAgent extends EventEmitter<DeviceAgentEvents> {
  readonly session: DeviceSession;
  readonly journal: Journal;
  settings: DeviceSettings | undefined;
  /**
   * The account's opted-out numbers, hashed, from the latest settings: an encrypted task to one of
   * them is refused (the gateway cannot read its recipient). None while the settings carry none.
   */
  optedOut: OptedOutNumbers | undefined;
  private readonly radio: Radio;
  private readonly logger: AgentLogger;
  /** The hand-out being worked on for each SMS id; a revoke ends it unless it reached the radio. */
  private readonly handouts = new Map<string, SendTask>();
  private readonly waiting: SendTask[] = [];
  private active = 0;
  /** Sends the radio is working on: stop() waits for them, so that each ends with a known outcome. */
  private readonly onRadio = new Set<Promise<unknown>>();
  /** SMS sent with delivery reports asked for, by the references of their parts. */
  private readonly awaitingReport = new Map<number, Set<string>>();
  /** Delivery reports that came before the send they are about was recorded, by reference. */
  private readonly early = new Map<number, DeliveryReport>();
  /** Journaled messages handed to an MQTT client, by the client's generation. */
  private readonly inFlight = new Map<number, number>();
  /** Journaled messages waiting for an earlier report of the same SMS to be acknowledged. */
  private readonly chained = new Set<number>();
  /** The acknowledgement of the latest status report of each SMS, which the next one waits for. */
  private readonly reportChains = new Map<string, Promise<unknown>>();
  /**
   * Settles once the latest received SMS was acknowledged: the next waits for it, so that the
   * gateway takes received SMS in the order they came (a STOP, then the START after it).
   */
  private incomingChain: Promise<unknown> = Promise.resolve();
  /** Resolves once the first settings came (or the agent stopped before they did). */
  private readonly firstSettings: Promise<void>;
  private settingsCame: () => void = () => {};
  /** The heartbeat due because the count of kept SMS changed; one at a time. */
  private heldHeartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  private ended = false;
  /** The passphrase's fingerprint, worked out once (a key derivation) for every heartbeat. */
  private fingerprint: Promise<string> | undefined;

  constructor(private readonly options: DeviceAgentOptions) {
    super();
    this.radio = options.radio;
    this.journal = options.journal ?? Journal.open();
    this.logger = options.logger ?? silentLogger;
    this.firstSettings = new Promise((resolve) => (this.settingsCame = resolve));
    this.session = new DeviceSession(options, () => this.heartbeatPayload());
    this.session.on('message', (topic, payload) => this.onMessage(topic, payload));
    this.session.on('connected', () => {
      this.publishLeftOver();
      this.emit('connected');
    });
    this.session.on('reconnecting', () => this.emit('reconnecting'));
    this.session.on('refused', (code) => this.emit('refused', code));
  }

  get id(): string {
    return this.options.deviceId;
  }

  /** The furthest status this device reached for an SMS it holds; undefined: not (or no longer) its. */
  statusOf(smsId: string): ReportStatus | undefined {
    return this.journal.tasks.get(smsId)?.status;
  }

  /**
   * Opens the radio, connects, and resolves once subscribed and announced. What a previous run
   * left is taken up first: a task handed to the radio with no answer is reported as of unknown
   * outcome, and every report not acknowledged is published again.
   */
  async start(): Promise<void> {
    const memory: RadioMemory = {
      get: <T>(key: string) => this.journal.memory.get(key) as T | undefined,
      set: async (key, value) => this.journal.setMemory(key, value),
    };
    await this.radio.start(this.radioHandlers(), memory);
    this.settleInterrupted();
    for (const record of this.journal.tasks.values()) if (record.status === 'sent') this.expectReports(record);
    await this.session.connect();
  }

  /** Connects again after session.suspend(), to session.options.brokerUrl: the journal carries the state across. */
  async reconnect(): Promise<void> {
    await this.session.connect();
  }

  /** Stops taking tasks, lets the radio finish the SMS it has, closes the session and the radio. */
  async stop(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopped = true;
    this.waiting.length = 0;
    clearTimeout(this.heldHeartbeat);
    this.settingsCame();
    // Tasks still waiting for their acknowledgement end with the session; their SMS never reached
    // the radio. A radio that never answers is not waited for past the limit: its SMS stays
    // "handed to the radio" in the journal, and the next run reports it.
    await Promise.race([Promise.all(this.onRadio), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    await this.session.close();
    await this.radio.stop();
    this.journal.close();
  }

  /** Ends at once, as a process killed or a phone losing power does: nothing is finished or flushed beyond the journal. */
  async crash(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopped = true;
    this.waiting.length = 0;
    clearTimeout(this.heldHeartbeat);
    this.settingsCame();
    await this.session.crash();
    this.journal.close();
  }

  /**
   * What an earlier run left unfinished. A task handed to the radio with no answer: nobody knows
   * whether it went out, so it is reported failed and never sent again. A task only taken is
   * forgotten: the gateway hands it out again if it is still this device's, and it is then worked
   * as a new task.
   */
  private settleInterrupted(): void {
    for (const record of [...this.journal.tasks.values()]) {
      if (record.stage === 'taken') this.journal.forgetTask(record.task.sms_id);
      if (record.stage !== 'radio') continue;
      this.logger.warn('a send was interrupted by a restart; reported as failed, never sent again', { sms: record.task.sms_id });
      this.finish(record, 'failed_send', { error: 'the agent stopped while the radio had this SMS: whether it went out is unknown, so it was not sent again' });
    }
  }

  private onMessage(topic: string, payload: Buffer): void {
    const kind = inboundKind(this.id, topic);
    if (kind === 'settings') {
      const settings = parseSettings(payload);
      if (typeof settings === 'string') return this.reject(topic, settings);
      const optedOut = parseOptedOut(settings.opted_out);
      if (typeof optedOut === 'string') return this.reject(topic, optedOut);
      if (!optedOut && settings.opted_out !== undefined) this.logger.warn('the opt-out list comes in a scheme this agent does not know: encrypted SMS are not checked against it');
      if (optedOut && !optedOut.complete) this.logger.warn('the opt-out list is longer than the gateway gives phones: encrypted SMS are checked against its newest numbers only', { count: optedOut.size });
      this.optedOut = optedOut;
      this.settings = settings;
      if (this.forwardsIncoming()) this.forwardHeld();
      else this.keepUnsent();
      this.settingsCame();
      this.emit('settings', settings);
    } else if (kind === 'revoke') {
      const revoke = parseRevoke(payload);
      if (typeof revoke === 'string') return this.reject(topic, revoke);
      this.onRevoke(revoke.sms_id, revoke.reason);
    } else if (kind === 'tasks') {
      const task = parseTask(payload);
      if (typeof task === 'string') return this.reject(topic, task);
      this.onTask(task);
    }
  }

  private reject(topic: string, why: string): void {
    this.logger.warn('dropped a message from the gateway that fails its checks', { topic, why });
    this.emit('rejected', topic, why);
  }

  private onTask(task: SendTask): void {
    let known = this.journal.tasks.get(task.sms_id);
    // The gateway tries again a send this phone reported failed: a new task, worked once.
    if (known && known.status === 'failed_send' && (task.attempt ?? 1) > (known.task.attempt ?? 1)) {
      this.journal.forgetTask(task.sms_id);
      known = undefined;
    }
    this.emit('task', task, known !== undefined);
    if (known) {
      // Already taken: acknowledged again with where it stands; never worked twice.
      void this.publishStatus({ sms_id: task.sms_id, status: known.status }).catch(() => {});
      return;
    }
    if (this.stopped) return;
    // Taken from this moment: a redelivery is a duplicate even before processing is reported.
    this.journal.putTask({ task, stage: 'taken', status: 'processing', takenAt: Date.now() });
    this.handouts.set(task.sms_id, task);
    this.waiting.push(task);
    this.next();
  }

  private onRevoke(smsId: string, reason: string): void {
    const record = this.journal.tasks.get(smsId);
    // Not handed to the radio: the task is no longer this device's at all. Handed out again later
    // (the device switched back on, the SMS back from another phone), it is a new task, sent once.
    // One that reached the radio stays known: never sent twice.
    const forgotten = record !== undefined && record.stage === 'taken';
    if (forgotten) {
      this.handouts.delete(smsId);
      this.journal.forgetTask(smsId);
    }
    this.emit('revoked', smsId, reason, forgotten);
  }

  private next(): void {
    while (!this.stopped && this.active < (this.options.concurrency ?? 1) && this.waiting.length > 0) {
      const task = this.waiting.shift()!;
      this.active++;
      void this.work(task)
        .catch((error: unknown) => this.logger.error('a task failed unexpectedly', { sms: task.sms_id, error: String(error) }))
        .finally(() => {
          this.active--;
          this.next();
        });
    }
  }

  private async work(task: SendTask): Promise<void> {
    // Still this hand-out's: no revoke ended it (a later hand-out of the same SMS is another task).
    const mine = () => this.handouts.get(task.sms_id) === task;
    await pause(this.options.acknowledgeDelayMs);
    if (!mine()) return;
    // The acknowledgement completes only after the gateway committed it, and a revoke for the
    // task (cancelled, expired, given to another phone) arrives before that: check, then send.
    if (!(await this.acknowledge(task.sms_id, mine)) || !mine() || this.stopped) return;
    const record = this.journal.tasks.get(task.sms_id)!;
    if (task.valid_until !== null && Date.parse(task.valid_until) <= Date.now()) {
      this.handouts.delete(task.sms_id);
      this.finish(record, 'failed_send', { error: 'expired before the radio could send it' });
      return;
    }
    if (task.kind === 'mms' && !this.radio.sendsMms) {
      this.handouts.delete(task.sms_id);
      this.finish(record, 'failed_send', { error: `this device's radio (${this.radio.kind}) cannot send MMS` });
      return;
    }
    // The plaintext exists only here, on its way to the radio: the journal keeps the ciphertext.
    const content = await this.readable(task);
    if ('error' in content) {
      this.handouts.delete(task.sms_id);
      this.finish(record, 'failed_send', content);
      return;
    }
    // On disk before the radio has it: a crash from here on never leads to a second send.
    record.stage = 'radio';
    this.journal.putTask(record);
    this.handouts.delete(task.sms_id);
    const sending = this.radio.send({
      smsId: task.sms_id,
      phone: content.phone,
      message: content.message,
      simSlot: task.sim >= 0 ? task.sim : undefined,
      statusReport: this.options.deliveryReports ?? true,
      ...(content.data ? { data: content.data } : {}),
      ...(task.kind === 'mms' ? { mms: { subject: task.subject ?? null, recipients: task.recipients ?? [task.phone], parts: task.parts ?? [] } } : {}),
    });
    this.onRadio.add(sending);
    const result = await sending
      // A radio that throws instead of answering a refusal: the SMS still ends, as failed.
      .catch((error: unknown): SendResult => ({ ok: false, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => this.onRadio.delete(sending));
    if (!result.ok) {
      const simSlot = result.simSlot ?? (task.sim >= 0 ? task.sim : undefined);
      this.finish(record, 'failed_send', { error: result.error, error_code: result.errorCode, sim_slot: simSlot });
      return;
    }
    if (result.references?.length) record.references = result.references;
    this.finish(record, 'sent', { sim_slot: result.simSlot });
    this.expectReports(record);
  }

  /**
   * What the radio sends for a task: an encrypted one's recipient and text decrypted, a data
   * SMS's payload as bytes; or why it cannot be sent (a Refusal).
   */
  private async readable(task: SendTask): Promise<{ phone: string; message: string; data?: { bytes: Buffer; port: number } } | Refusal> {
    let { phone, message } = task;
    if (task.is_encrypted) {
      if (this.options.passphrase === undefined) return { error: 'decryption_failed: no passphrase is set on this phone' };
      try {
        [phone, message] = await Promise.all([decrypt(task.phone, this.options.passphrase), decrypt(task.message, this.options.passphrase)]);
      } catch {
        this.logger.warn('an encrypted task does not open with this phone\'s passphrase', { sms: task.sms_id });
        return { error: 'decryption_failed' };
      }
      if (!/^\+?[0-9]{1,20}$/.test(phone)) return { error: 'decryption_failed: the recipient is not a phone number' };
      // The gateway refused a plain SMS to a listed number when it was created; this one it could
      // not read, so the phone holds the line (a plain one passed a key allowed to send past it).
      if (this.optedOut?.has(phone)) {
        this.logger.info('an encrypted task is to a number that opted out: not sent', { sms: task.sms_id });
        return { error: 'recipient_opted_out', error_code: 'recipient_opted_out' };
      }
    }
    if (task.data === undefined) return { phone, message };
    if (!this.radio.sendsData) return { error: 'data_sms_unsupported' };
    return { phone, message: '', data: { bytes: Buffer.from(task.data, 'base64'), port: task.port! } };
  }

  /**
   * Reports processing until an acknowledgement completes that a revoke would have preceded: one
   * published while this connection's revoke subscription was in place, and completed on that
   * same connection. After a lost connection MQTT.js sends the unacknowledged report again first
   * thing, before the subscriptions; a node that holds no session of this device answers it with
   * a revoke that reaches no one, then completes it. Such a completion proves nothing: the report
   * goes again once subscribed.
   */
  private async acknowledge(smsId: string, mine: () => boolean): Promise<boolean> {
    for (;;) {
      let connection: number;
      try {
        connection = await this.session.subscribedConnection();
        await this.publishStatus({ sms_id: smsId, status: 'processing' });
      } catch {
        // The session ended for good (stop), or this client went (suspend): try again on the next
        // one, after a pause, so that a client failing at once cannot spin.
        if (this.stopped) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (!mine() || connection === this.session.connectionNumber) return true;
    }
  }

  /** Records how a task stands and reports it, through the journal. Never moves a status back. */
  private finish(record: TaskRecord, status: ReportStatus, extra: { error?: string; error_code?: string | undefined; sim_slot?: number | undefined }): void {
    if (STATUS_RANK[record.status] >= STATUS_RANK[status]) return;
    record.status = status;
    record.stage = 'done';
    if (STATUS_RANK[status] === 3) this.reportsDone(record);
    this.journal.putTask(record);
    const report: StatusReport = { sms_id: record.task.sms_id, status };
    if (extra.error !== undefined) report.error = extra.error.slice(0, MAX_ERROR_LENGTH);
    if (extra.error_code !== undefined) report.error_code = extra.error_code;
    if (extra.sim_slot !== undefined) report.sim_slot = extra.sim_slot;
    // One SMS's reports reach the gateway in order: a delivery report that came fast is not
    // published before the gateway acknowledged "sent" (it would take "delivered" first, and then
    // ignore "sent" as late).
    const smsId = record.task.sms_id;
    const published = this.queue('status', JSON.stringify(report), this.reportChains.get(smsId)).then(
      () => this.emit('report', smsId, status),
      // The session ended first: the journal keeps the report for the next run.
      () => {},
    );
    this.reportChains.set(smsId, published);
    void published.then(() => {
      if (this.reportChains.get(smsId) === published) this.reportChains.delete(smsId);
    });
  }

  private radioHandlers(): RadioHandlers {
    // Each returns once the item is in the journal: the radio may then forget it. The gateway's
    // acknowledgement comes later, and the journal keeps the item until then.
    return {
      incoming: async (sms) => {
        const taken = await this.takeIncoming(sms);
        void taken.acknowledged?.catch(() => {});
      },
      delivery: async (report) => this.onDelivery(report),
      call: async (call) => void this.forwardCall(call).catch(() => {}),
      problem: (message) => this.logger.warn(`radio: ${message}`),
    };
  }

  /**
   * A received SMS, as the radio hands it over: forwarded while forward_incoming_sms is on
   * (resolved once the gateway acknowledged it), kept in the journal while it is off or before the
   * first settings came (resolved once kept). The gateway stores none while the setting is off, so
   * the phone holds them instead of losing them; when the setting comes on, it forwards them.
   */
  async forwardIncoming(sms: ReceivedSms): Promise<void> {
    const before = this.settings;
    const taken = await this.takeIncoming(sms);
    if (taken.acknowledged) return taken.acknowledged;
    if (before !== undefined) return;
    // Kept because no settings had come yet: once they do, it is forwarded (resolved once
    // acknowledged, with those kept before it) or kept while forwarding is off.
    await this.firstSettings;
    if (this.forwardsIncoming()) await this.incomingChain;
  }

  /** How many received SMS the journal keeps, not forwarded, while forwarding is off. */
  get incomingHeld(): number {
    return this.journal.held.size;
  }

  /**
   * Journals a received SMS (in the outbox to be published, or kept) and returns once it is on
   * disk: only then may the radio forget it. Throws when the keep is full: the radio keeps it.
   */
  private async takeIncoming(sms: ReceivedSms): Promise<{ acknowledged?: Promise<void> }> {
    const payload = await this.incomingPayload(sms);
    // Decided after the payload is made: settings that came meanwhile count.
    if (this.forwardsIncoming()) return { acknowledged: this.forwardInTurn(this.journal.enqueue('incoming', payload)) };
    if (this.journal.held.size >= MAX_HELD_INCOMING && !this.journal.held.has(sms.id)) {
      throw new Error(`${MAX_HELD_INCOMING} received SMS are kept while forwarding is off: the radio keeps this one`);
    }
    this.journal.hold({ id: sms.id, payload });
    this.heldChanged();
    return {};
  }

  private forwardsIncoming(): boolean {
    return this.settings?.forward_incoming_sms === true;
  }

  /**
   * Forwarding came on: what was kept goes out, oldest first, each once (it leaves the keep as it
   * enters the outbox), one after another like every received SMS.
   */
  private forwardHeld(): void {
    const items = this.journal.releaseHeld();
    if (items.length === 0) return;
    this.logger.info('forwarding is on: forwarding the received SMS kept while it was off', { count: items.length });
    // The session ended first: the journal keeps them for the next run.
    for (const item of items) void this.forwardInTurn(item).catch(() => {});
    this.heldChanged();
  }

  /**
   * Publishes a journaled received SMS once those before it were acknowledged; resolves once it
   * is, or at once when it was kept again meanwhile (keepUnsent).
   */
  private forwardInTurn(item: OutboxItem): Promise<void> {
    this.chained.add(item.seq);
    const published = this.incomingChain.then(() => {
      this.chained.delete(item.seq);
      if (!this.journal.outbox.has(item.seq)) return;
      return this.publishQueued(item.seq, item.topic, item.payload);
    });
    this.incomingChain = published.catch(() => {});
    return published;
  }

  /**
   * Forwarding is off: received SMS the gateway has not acknowledged are kept again, oldest first,
   * rather than sent to a gateway that drops them. Those waiting for their turn are never sent;
   * the one published and not yet acknowledged may have come after the switch and been dropped,
   * so it is kept too (forwarded again later, the gateway stores it once).
   */
  private keepUnsent(): void {
    const waiting = [...this.journal.outbox.values()]
      .filter((item) => item.topic === 'incoming')
      .sort((a, b) => a.seq - b.seq)
      .map((item) => ({ seq: item.seq, id: (JSON.parse(item.payload) as { id: string }).id }));
    if (waiting.length === 0) return;
    this.journal.holdAgain(waiting);
    this.heldChanged();
  }

  /** The count of kept SMS changed: a heartbeat tells the gateway soon, one for a burst. */
  private heldChanged(): void {
    if (this.heldHeartbeat || this.ended) return;
    this.heldHeartbeat = setTimeout(() => {
      this.heldHeartbeat = undefined;
      void this.session.heartbeat().catch(() => {});
    }, HELD_HEARTBEAT_DELAY_MS);
    this.heldHeartbeat.unref();
  }

  /** A received SMS as the gateway takes it; encrypted first when this phone encrypts what it receives. */
  private async incomingPayload(sms: ReceivedSms): Promise<string> {
    let { phone, message } = sms;
    let encrypted = sms.isEncrypted === true;
    if (!encrypted && this.options.encryptIncoming && this.options.passphrase !== undefined) {
      [phone, message] = await Promise.all([encrypt(phone, this.options.passphrase), encrypt(message, this.options.passphrase)]);
      encrypted = true;
    }
    return JSON.stringify({
      id: sms.id,
      phone,
      message,
      received_at: sms.receivedAt.toISOString(),
      ...(sms.simSlot !== undefined ? { sim_slot: sms.simSlot } : {}),
      ...(encrypted ? { is_encrypted: true } : {}),
    });
  }

  /** Reports a call to the call log, as forwardIncoming does an SMS. */
  forwardCall(call: ReceivedCall): Promise<void> {
    return this.queue(
      'calls',
      JSON.stringify({
        id: call.id,
        direction: call.direction,
        phone: call.phone,
        started_at: call.startedAt.toISOString(),
        duration_seconds: call.durationSeconds,
        ...(call.simSlot !== undefined ? { sim_slot: call.simSlot } : {}),
      }),
    );
  }

  /**
   * A part's delivery report: the SMS is delivered once every part is, undelivered as soon as one
   * part is given up. A network's references run 0-255 and come round again, so the report goes
   * to the newest SMS to the same recipient that waits for that reference.
   */
  private onDelivery(report: DeliveryReport): void {
    if (report.outcome === 'pending') return;
    const waiting = [...(this.awaitingReport.get(report.reference) ?? [])]
      .map((smsId) => this.journal.tasks.get(smsId))
      .filter((record): record is TaskRecord => record?.status === 'sent');
    const record = waiting.filter((candidate) => samePhone(candidate.task.phone, report.phone)).at(-1) ?? (waiting.length === 1 ? waiting[0] : undefined);
    if (!record) {
      // A report can overtake the radio's answer to the send; it is kept for a while for that.
      this.early.set(report.reference, report);
      if (this.early.size > MAX_EARLY_REPORTS) this.early.delete(this.early.keys().next().value!);
      this.logger.info('a delivery report matches no SMS waiting for one (yet)', { reference: report.reference });
      return;
    }
    if (report.outcome === 'undelivered') {
      this.finish(record, 'undelivered', { error: report.error ?? 'the network gave up delivering it' });
      return;
    }
    record.delivered = [...new Set([...(record.delivered ?? []), report.reference])];
    if (record.references!.every((reference) => record.delivered!.includes(reference))) this.finish(record, 'delivered', {});
    else this.journal.putTask(record);
  }

  private expectReports(record: TaskRecord): void {
    for (const reference of record.references ?? []) {
      const ids = this.awaitingReport.get(reference) ?? new Set<string>();
      // Oldest first: a Set keeps insertion order, and a re-added id moves to the end.
      ids.delete(record.task.sms_id);
      ids.add(record.task.sms_id);
      this.awaitingReport.set(reference, ids);
    }
    for (const reference of record.references ?? []) {
      const early = this.early.get(reference);
      if (!early || !samePhone(early.phone, record.task.phone)) continue;
      this.early.delete(reference);
      this.onDelivery(early);
    }
  }

  private reportsDone(record: TaskRecord): void {
    for (const reference of record.references ?? []) {
      const ids = this.awaitingReport.get(reference);
      ids?.delete(record.task.sms_id);
      if (ids?.size === 0) this.awaitingReport.delete(reference);
    }
  }

  /** Journals a message for the gateway, publishes it, and resolves once acknowledged (then it leaves the journal). */
  private async queue(topic: OutboundTopic, payload: string, after?: Promise<unknown>): Promise<void> {
    const item = this.journal.enqueue(topic, payload);
    if (after) {
      this.chained.add(item.seq);
      await after;
      this.chained.delete(item.seq);
    }
    return this.publishQueued(item.seq, topic, payload);
  }

  private async publishQueued(seq: number, topic: OutboundTopic, payload: string): Promise<void> {
    // MQTT.js keeps it across a drop until acknowledged, and the journal across a restart or a
    // new MQTT client (publishLeftOver).
    await this.session.publishWhenConnected(deviceTopic(this.id, topic), payload, 2, () => this.inFlight.set(seq, this.session.generation));
    this.inFlight.delete(seq);
    this.journal.acknowledged(seq);
  }

  /** On a connection of a new MQTT client: what the journal holds and that client never published goes out. */
  private publishLeftOver(): void {
    for (const item of this.journal.outbox.values()) {
      if (this.chained.has(item.seq) || this.inFlight.get(item.seq) === this.session.generation) continue;
      void this.publishQueued(item.seq, item.topic, item.payload).catch(() => {});
    }
  }

  private async publishStatus(report: StatusReport): Promise<void> {
    await this.session.publish(deviceTopic(this.id, 'status'), JSON.stringify(report), 2);
    this.emit('report', report.sms_id, report.status);
  }

  /**
   * The heartbeat, held to the contract's bounds whatever the radio said: the gateway drops a
   * heartbeat with one field out of bounds whole, so a fractional percentage or a long operator
   * name would cost the device its battery, SIM and signal readings.
   */
  private async heartbeatPayload(): Promise<string> {
    const status = await this.radio.status();
    const percent = (value: number) => Math.min(100, Math.max(0, Math.round(value)));
    return JSON.stringify({
      // A radio that cannot tell (a modem on mains power) reads as full and charging.
      battery_level: status.batteryLevel === undefined ? 100 : percent(status.batteryLevel),
      is_charging: status.isCharging ?? status.batteryLevel === undefined,
      sim_cards: status.simCards
        .filter((card) => Number.isInteger(card.index) && card.index >= 0 && card.index <= 7)
        .slice(0, 8)
        .map((card) => ({
          index: card.index,
          name_operator: card.name_operator.slice(0, 100),
          // Only what looks like E.164: the gateway drops any other for the SIM, and says so in its log.
          ...(card.phone_number && /^\+[1-9][0-9]{6,14}$/.test(card.phone_number) ? { phone_number: card.phone_number } : {}),
        })),
      type: status.type.slice(0, 50) || 'unknown',
      ...(status.name ? { name: status.name.slice(0, 100) } : {}),
      app_version: (this.options.appVersion ?? 'sms-gateway-agent').slice(0, 50),
      ...(status.signalPercent !== undefined ? { signal_percent: percent(status.signalPercent) } : {}),
      incoming_held: Math.min(this.journal.held.size, MAX_HELD_INCOMING),
      capabilities: await this.capabilities(),
      ...(status.health ? { radio: radioField(status.health) } : {}),
    });
  }

  /**
   * What this device can be given, so that the gateway hands it nothing it would fail: MMS and
   * data SMS as its radio sends them, USSD and call recordings only where the program around the
   * agent handles them, and which passphrase it holds, by fingerprint (never the passphrase).
   */
  private async capabilities(): Promise<Record<string, boolean | string>> {
    const { passphrase } = this.options;
    if (passphrase !== undefined) this.fingerprint ??= passphraseFingerprint(passphrase);
    return {
      mms: this.radio.sendsMms === true,
      ussd: this.options.alsoHandles?.ussd === true,
      data_sms: this.radio.sendsData === true,
      call_recording: this.options.alsoHandles?.callRecording === true,
      ...(this.fingerprint ? { passphrase_fingerprint: await this.fingerprint } : {}),
    };
  }
}

/** The heartbeat's radio, held to the contract's bounds: a malformed one would be dropped by the gateway. */
function radioField(health: NonNullable<RadioStatus['health']>): Record<string, boolean | string> {
  const problem = health.problem && /^[a-z][a-z0-9_]{0,49}$/.test(health.problem) ? health.problem : undefined;
  const detail = health.detail?.replace(/\s+/g, ' ').trim().slice(0, 300);
  return { can_send: health.canSend, ...(problem ? { problem } : {}), ...(detail ? { detail } : {}) };
}

/** Whether two numbers name the same phone: a report may give it without the + or in national form. */
function samePhone(a: string, b: string): boolean {
  const digits = (phone: string) => phone.replace(/\D/g, '');
  const [x, y] = [digits(a), digits(b)];
  return x.length > 0 && y.length > 0 && (x.endsWith(y.slice(-9)) || y.endsWith(x.slice(-9)));
}

function pause(ms = 0): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}
