// A radio that sends nothing: each SMS "goes out" after a delay, fails at a chosen rate, and gets
// a delivery report (delivered, or undelivered at a chosen rate) after another delay. With it the
// agent is the gateway's simulator (`sms-gateway simulate`, the demo, the benchmarks, the tests),
// so simulated phones and real ones run the same protocol code.
import type { OutgoingSms, Radio, RadioHandlers, RadioStatus, SendResult } from './radio.ts';

const MAX_KEPT_SENDS = 10_000;

export interface SimulateOptions {
  /** Milliseconds before the SMS counts as sent, and then before its delivery report. */
  delays?: { sent?: number; delivered?: number };
  /** Fractions 0..1 of SMS that fail to send (with no error code: final), or are reported undelivered. */
  failSendRate?: number;
  /** SIM slots whose every send fails, with the error code it fails with (no_service...). */
  failSims?: ReadonlyMap<number, string>;
  undeliveredRate?: number;
  simCards?: { index: number; name_operator: string; phone_number?: string }[];
  name?: string;
  /**
   * Fetches an MMS's parts from the gateway before it "goes out" (the simulated device does it
   * over HTTP with its credentials); a rejection fails the send with its message. None: the radio
   * sends no MMS.
   */
  fetchMms?: (sms: OutgoingSms) => Promise<void>;
}

export class SimulatedRadio implements Radio {
  readonly kind = 'simulate';
  readonly sendsData = true;
  readonly sendsMms: boolean;
  /** How many times each SMS went out: the agent's promise is that this never exceeds 1. */
  readonly sendCount = new Map<string, number>();
  /** What went out over the "air" (the recipient and text as decrypted, a data SMS's bytes and port), newest kept. */
  readonly sent = new Map<string, OutgoingSms>();
  batteryLevel = 87;
  isCharging = false;
  private handlers: RadioHandlers | undefined;
  private nextReference = 0;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: SimulateOptions = {}) {
    this.sendsMms = options.fetchMms !== undefined;
  }

  async start(handlers: RadioHandlers): Promise<void> {
    this.handlers = handlers;
  }

  async send(sms: OutgoingSms): Promise<SendResult> {
    if (sms.mms) {
      const fetched = await this.options.fetchMms!(sms).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      if (fetched !== undefined) return { ok: false, error: `MMS parts not fetched: ${fetched}` };
    }
    await this.wait(this.options.delays?.sent);
    const simSlot = sms.simSlot ?? this.options.simCards?.[0]?.index;
    const failing = simSlot !== undefined ? this.options.failSims?.get(simSlot) : undefined;
    if (failing) return { ok: false, error: `simulated: every send from slot ${simSlot} fails (${failing})`, errorCode: failing, simSlot: simSlot! };
    // Without a machine-readable code, as a phone that cannot tell why: final, never retried
    // (failSims is the way to failures the gateway retries).
    if (Math.random() < (this.options.failSendRate ?? 0)) return { ok: false, error: 'simulated failure to send' };
    this.sendCount.set(sms.smsId, (this.sendCount.get(sms.smsId) ?? 0) + 1);
    this.sent.set(sms.smsId, sms);
    // A long simulation keeps the latest sends only.
    if (this.sent.size > MAX_KEPT_SENDS) this.sent.delete(this.sent.keys().next().value!);
    if (!sms.statusReport) return { ok: true, ...(simSlot !== undefined ? { simSlot } : {}) };
    // Unlike a network's 0-255, never repeated: thousands of simulated SMS may wait for reports at once.
    const reference = this.nextReference++;
    const undelivered = Math.random() < (this.options.undeliveredRate ?? 0);
    this.later(this.options.delays?.delivered, () =>
      this.handlers?.delivery({ reference, phone: sms.phone, outcome: undelivered ? 'undelivered' : 'delivered', ...(undelivered ? { error: 'simulated: not delivered' } : {}) }),
    );
    return { ok: true, references: [reference], ...(simSlot !== undefined ? { simSlot } : {}) };
  }

  async status(): Promise<RadioStatus> {
    return {
      batteryLevel: this.batteryLevel,
      isCharging: this.isCharging,
      simCards: this.options.simCards ?? [{ index: 0, name_operator: 'Simulated Mobile' }],
      type: 'android',
      ...(this.options.name ? { name: this.options.name } : {}),
    };
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private wait(ms = 0): Promise<void> | undefined {
    return ms > 0 ? new Promise((resolve) => this.later(ms, resolve)) : undefined;
  }

  private later(ms: number | undefined, run: () => unknown): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms ?? 0);
    this.timers.add(timer);
  }
}
