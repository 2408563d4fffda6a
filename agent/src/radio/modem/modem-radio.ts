// A GSM modem on a serial port as the agent's radio. It owns one session at a time (the open port,
// its AT channel, what setup found out). When the modem stops answering or the port goes away, the
// session is dropped and the port reopened and set up again, with growing pauses, until it works;
// a send caught in the middle fails with a clear error and is never sent again by itself.
import type { Duplex } from 'node:stream';
import type { OutgoingSms, Radio, RadioHandlers, RadioMemory, RadioStatus, SendResult } from '../radio.ts';
import { AtChannel } from './at-channel.ts';
import { AtCommandError } from './at-errors.ts';
import { Inbox } from './modem-inbox.ts';
import { sendParts } from './modem-sender.ts';
import { ModemSetupError, setUpModem, type ModemSetup } from './modem-setup.ts';
import { modemHealth } from './modem-health.ts';
import { parseBatteryLevel, parseOperatorName, parseOwnNumber, parseSignalPercent } from './responses.ts';
import { closePort, openSerialPort, type OpenPort } from './serial-port.ts';
import type { UnsolicitedEvent } from './unsolicited.ts';

export interface ModemOptions {
  /** The modem's AT port, e.g. /dev/ttyUSB2. */
  path: string;
  /** Default 115200 (USB modems ignore it; real serial lines need the modem's rate). */
  baudRate?: number;
  /** The SIM's PIN, when it asks for one. */
  pin?: string;
  /** Service centre number; default: the one stored on the SIM. */
  smsc?: string;
  /** Relative validity asked of the centre for each SMS, in minutes; default: the centre's own. */
  validityMinutes?: number;
  /** Per AT command; default 10 s. */
  commandTimeoutMs?: number;
  /** Per SMS part (AT+CMGS waits for the network); default 60 s. */
  sendTimeoutMs?: number;
  /** Bounded wait for network registration at setup; default 60 s. */
  registrationTimeoutMs?: number;
  /** How often stored SMS are listed, incomplete or refused ones retried; default 60 s. */
  pollIntervalMs?: number;
  /** First pause before reopening a modem that stopped answering; doubles up to 60 s. Default 2 s. */
  recoveryDelayMs?: number;
  /** How long a send waits for a modem being reopened; default 30 s. */
  readyWaitMs?: number;
  /** How long the parts of a long SMS wait for the rest; default 24 h. */
  incompleteTimeoutMs?: number;
  /** Opens the port; default: the serialport package. Tests pass their own. */
  openPort?: OpenPort;
}

interface Session {
  port: Duplex;
  channel: AtChannel;
  setup: ModemSetup;
}

type State = 'created' | 'starting' | 'ready' | 'recovering' | 'failed' | 'stopped';

const CONCAT_REFERENCE = 'modem.concatReference';
const MAX_RECOVERY_DELAY_MS = 60_000;

export function createModemRadio(options: ModemOptions): Radio {
  return new ModemRadio(options);
}

class ModemRadio implements Radio {
  readonly kind = 'modem';
  /** Data SMS go out as 8-bit PDUs with a port header (pdu/data-submit.ts). */
  readonly sendsData = true;
  private state: State = 'created';
  private session: Session | undefined;
  private handlers: RadioHandlers | undefined;
  private memory: RadioMemory | undefined;
  private inbox: Inbox | undefined;
  private readonly readStorage: { current: string | undefined } = { current: undefined };
  private name: string | undefined;
  private failure: string | undefined;
  private readonly sends = new Set<Promise<SendResult>>();
  private readonly stateWaiters = new Set<() => void>();
  private pollTimer: NodeJS.Timeout | undefined;
  private pauseTimer: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  private readonly settings;

  constructor(private readonly options: ModemOptions) {
    this.settings = {
      baudRate: options.baudRate ?? 115_200,
      commandTimeoutMs: options.commandTimeoutMs ?? 10_000,
      sendTimeoutMs: options.sendTimeoutMs ?? 60_000,
      registrationTimeoutMs: options.registrationTimeoutMs ?? 60_000,
      pollIntervalMs: options.pollIntervalMs ?? 60_000,
      recoveryDelayMs: options.recoveryDelayMs ?? 2_000,
      readyWaitMs: options.readyWaitMs ?? 30_000,
      incompleteTimeoutMs: options.incompleteTimeoutMs ?? 24 * 60 * 60 * 1000,
      openPort: options.openPort ?? openSerialPort,
    };
  }

  async start(handlers: RadioHandlers, memory: RadioMemory): Promise<void> {
    if (this.state !== 'created') throw new Error('the modem radio was already started');
    this.handlers = handlers;
    this.memory = memory;
    this.state = 'starting';
    this.inbox = new Inbox({
      channel: () => (this.state === 'ready' ? this.session?.channel : undefined),
      handlers,
      memory,
      needsAck: () => this.session?.setup.needsAck ?? false,
      readStorage: this.readStorage,
      problem: (message) => this.problem(message),
      incompleteTimeoutMs: this.settings.incompleteTimeoutMs,
      // Listing a full SIM takes a few seconds on slow modems.
      listTimeoutMs: this.settings.commandTimeoutMs * 3,
    });
    try {
      await this.connect();
    } catch (error) {
      this.state = 'stopped';
      const text = `the modem on ${this.options.path} could not be set up: ${message(error)}`;
      // Kept apart: the command exits so that a supervisor does not start it again.
      throw error instanceof ModemSetupError ? new ModemSetupError(text) : new Error(text);
    }
    this.setState('ready');
    this.pollNow();
  }

  async send(sms: OutgoingSms): Promise<SendResult> {
    const sending = this.sendWhenReady(sms);
    this.sends.add(sending);
    try {
      return await sending;
    } finally {
      this.sends.delete(sending);
    }
  }

  async status(): Promise<RadioStatus> {
    const status: RadioStatus = { type: 'modem', simCards: [], ...(this.name ? { name: this.name } : {}) };
    const channel = this.state === 'ready' ? this.session?.channel : undefined;
    if (!channel) {
      // Being reopened after it stopped answering, or given up on: nothing can be sent meanwhile.
      if (this.state !== 'recovering' && this.state !== 'failed') return status;
      const detail = this.failure ?? 'the modem is being reopened after it stopped answering';
      return { ...status, health: { canSend: false, problem: /no SIM/i.test(detail) ? 'no_sim' : 'modem_unresponsive', detail } };
    }
    const ask = (command: string) => channel.command(command).catch((): string[] => []);
    const health = await modemHealth(channel);
    const [signal, battery, operator, ownNumber] = [await ask('AT+CSQ'), await ask('AT+CBC'), await ask('AT+COPS?'), await ask('AT+CNUM')];
    const signalPercent = parseSignalPercent(signal);
    const batteryLevel = parseBatteryLevel(battery);
    const operatorName = parseOperatorName(operator);
    const phoneNumber = parseOwnNumber(ownNumber);
    return {
      ...status,
      health,
      ...(signalPercent !== undefined ? { signalPercent } : {}),
      ...(batteryLevel !== undefined ? { batteryLevel } : {}),
      simCards: [{ index: 0, name_operator: operatorName ?? '', ...(phoneNumber ? { phone_number: phoneNumber } : {}) }],
    };
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    // Sends already handed over finish first; new ones are refused from here on.
    const sending = [...this.sends];
    this.setState('stopped');
    clearTimeout(this.pollTimer);
    this.pauseTimer?.wake();
    await Promise.allSettled(sending);
    await this.dropSession();
  }

  private async sendWhenReady(sms: OutgoingSms): Promise<SendResult> {
    if (this.state === 'stopped' || this.state === 'created') return { ok: false, error: 'the modem radio is not running', errorCode: 'radio_unavailable' };
    if (!(await this.waitUntilReady())) {
      return { ok: false, error: `the modem is not ready (${this.failure ?? 'it is being reopened after it stopped answering'})`, errorCode: 'radio_unavailable' };
    }
    const session = this.session!;
    const common = {
      phone: sms.phone,
      statusReport: sms.statusReport,
      ...(this.options.smsc ? { smsc: this.options.smsc } : {}),
      ...(this.options.validityMinutes !== undefined ? { validityMinutes: this.options.validityMinutes } : {}),
    };
    return sendParts(
      session.channel,
      sms.data ? { ...common, bytes: sms.data.bytes, port: sms.data.port } : { ...common, text: sms.message, concatReference: await this.nextConcatReference() },
      { timeoutMs: this.settings.sendTimeoutMs, deliveryReports: session.setup.deliveryReports },
    );
  }

  /** Kept across restarts so a long SMS sent right after one is not mistaken for its continuation. */
  private async nextConcatReference(): Promise<number> {
    const memory = this.memory!;
    const previous = memory.get<number>(CONCAT_REFERENCE) ?? Math.floor(Math.random() * 256);
    const next = (previous + 1) & 0xff;
    await memory.set(CONCAT_REFERENCE, next);
    return next;
  }

  private async connect(): Promise<void> {
    const port = await this.settings.openPort(this.options.path, this.settings.baudRate);
    const channel: AtChannel = new AtChannel(port, {
      timeoutMs: this.settings.commandTimeoutMs,
      onUnsolicited: (event) => this.onUnsolicited(event),
      onHang: (error) => {
        if (channel === this.session?.channel) this.recover(`the modem stopped answering (no answer to ${error.command} within ${error.timeoutMs} ms)`);
      },
      onClosed: (error) => {
        if (channel === this.session?.channel) this.recover(error.message);
      },
    });
    try {
      const setup = await setUpModem(channel, {
        pin: this.options.pin,
        registrationTimeoutMs: this.settings.registrationTimeoutMs,
        registrationPollMs: Math.min(2_000, this.settings.registrationTimeoutMs),
        problem: (text) => this.problem(text),
      });
      this.session = { port, channel, setup };
      this.readStorage.current = setup.readStorage;
      this.name = setup.name ?? this.name;
    } catch (error) {
      channel.close('setup failed');
      await closePort(port);
      throw error;
    }
  }

  private recover(reason: string): void {
    if (this.state !== 'ready') return;
    this.setState('recovering');
    this.problem(`${reason}; closing the port and opening it again`);
    void this.recoveryLoop();
  }

  private async recoveryLoop(): Promise<void> {
    await this.dropSession();
    let pause = this.settings.recoveryDelayMs;
    while (this.state === 'recovering') {
      await this.pause(pause);
      if (this.state !== 'recovering') return;
      try {
        await this.connect();
      } catch (error) {
        if (error instanceof ModemSetupError) {
          this.failure = error.message;
          this.setState('failed');
          this.problem(`the modem cannot be used: ${error.message}; not retrying`);
          return;
        }
        this.problem(`the modem is still not usable (${message(error)}); next try in ${pause < 10_000 ? `${pause} ms` : `${Math.round(pause / 1000)} s`}`);
        pause = Math.min(pause * 2, MAX_RECOVERY_DELAY_MS);
        continue;
      }
      if (this.state !== 'recovering') {
        await this.dropSession();
        return;
      }
      this.setState('ready');
      this.problem('the modem answers again after reopening its port');
      this.pollNow();
    }
  }

  private async dropSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    session.channel.close('the session was closed');
    await closePort(session.port);
  }

  private onUnsolicited(event: UnsolicitedEvent): void {
    const inbox = this.inbox;
    if (!inbox) return;
    if (event.type === 'stored-message' || event.type === 'stored-report') void inbox.onStored(event.storage, event.index);
    else if (event.type === 'direct-message' || event.type === 'direct-report') void inbox.onDirect(event.pdu, event.tpduLength);
  }

  /** Lists the SIM now and then every poll interval. */
  private pollNow(): void {
    clearTimeout(this.pollTimer);
    if (this.state !== 'ready') return;
    void this.inbox!.sweep().finally(() => {
      if (this.state !== 'ready') return;
      this.pollTimer = setTimeout(() => this.pollNow(), this.settings.pollIntervalMs);
      this.pollTimer.unref();
    });
  }

  private async waitUntilReady(): Promise<boolean> {
    const deadline = Date.now() + this.settings.readyWaitMs;
    while (this.state !== 'ready') {
      if (this.state !== 'recovering' && this.state !== 'starting') return false;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.stateWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.stateWaiters.add(done);
      });
    }
    return this.session !== undefined;
  }

  private setState(state: State): void {
    this.state = state;
    for (const waiter of [...this.stateWaiters]) waiter();
    this.stateWaiters.clear();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.pauseTimer = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.pauseTimer = { timer, wake };
    });
  }

  private problem(text: string): void {
    try {
      this.handlers?.problem(`modem ${this.options.path}: ${text}`);
    } catch {
      // Reporting must never break the radio.
    }
  }
}

function message(error: unknown): string {
  if (error instanceof AtCommandError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
