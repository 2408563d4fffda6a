// A radio whose every answer the test decides: sends are recorded and answered from a script
// (succeed, fail, or hang until released), and the test hands the agent received SMS, calls and
// delivery reports through the same handlers a real radio uses.
import type { DeliveryReport, OutgoingSms, Radio, RadioHandlers, RadioMemory, RadioStatus, ReceivedCall, ReceivedSms, SendResult } from '../../../agent/src/radio/radio.ts';

type Answer = SendResult | 'hang';

export class ScriptedRadio implements Radio {
  readonly kind = 'scripted';
  /** Every SMS handed to this radio, in order. */
  readonly sent: OutgoingSms[] = [];
  handlers: RadioHandlers | undefined;
  memory: RadioMemory | undefined;
  private readonly answers: Answer[] = [];
  private readonly sendWaiters: ((sms: OutgoingSms) => void)[] = [];
  private nextReference = 10;
  problems: string[] = [];

  /** The answers to the next sends, in order; when none is left a send succeeds with one reference. */
  answer(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  /** Resolves with the next SMS handed to the radio (or one already handed, not yet awaited). */
  nextSend(): Promise<OutgoingSms> {
    return new Promise((resolve) => this.sendWaiters.push(resolve));
  }

  async start(handlers: RadioHandlers, memory: RadioMemory): Promise<void> {
    this.handlers = { ...handlers, problem: (message) => this.problems.push(message) };
    this.memory = memory;
  }

  send(sms: OutgoingSms): Promise<SendResult> {
    this.sent.push(sms);
    this.sendWaiters.shift()?.(sms);
    const answer = this.answers.shift() ?? { ok: true, simSlot: 0, references: [this.nextReference++] };
    // A hang never answers: the radio took the SMS and the process dies before it says so.
    if (answer === 'hang') return new Promise(() => {});
    return Promise.resolve(answer);
  }

  /** What status() answers; a test may change it. */
  statusAnswer: RadioStatus = { batteryLevel: 55, isCharging: true, simCards: [{ index: 0, name_operator: 'Scripted Mobile' }], type: 'android', name: 'scripted radio' };

  async status(): Promise<RadioStatus> {
    return this.statusAnswer;
  }

  async stop(): Promise<void> {}

  receive(sms: ReceivedSms): Promise<void> {
    return this.handlers!.incoming(sms);
  }

  call(call: ReceivedCall): Promise<void> {
    return this.handlers!.call(call);
  }

  report(report: DeliveryReport): Promise<void> {
    return this.handlers!.delivery(report);
  }
}
