// Stands in for the agent core around a radio: records what the radio hands over, lets a test
// decide whether the agent "keeps" an incoming SMS, and lets a test await a record.
import { EventEmitter } from 'node:events';
import type { DeliveryReport, RadioHandlers, RadioMemory, ReceivedCall, ReceivedSms } from '../../../agent/src/radio/radio.ts';

export class RadioRecorder extends EventEmitter implements RadioHandlers {
  readonly received: ReceivedSms[] = [];
  readonly reports: DeliveryReport[] = [];
  readonly problems: string[] = [];
  /** Decides the answer to each incoming SMS; default: kept. */
  onIncoming: (sms: ReceivedSms) => Promise<void> = async () => {};

  async incoming(sms: ReceivedSms): Promise<void> {
    this.received.push(sms);
    this.emit('record');
    await this.onIncoming(sms);
  }

  async delivery(report: DeliveryReport): Promise<void> {
    this.reports.push(report);
    this.emit('record');
  }

  async call(_call: ReceivedCall): Promise<void> {}

  problem(message: string): void {
    this.problems.push(message);
    this.emit('record');
  }

  /** Resolves once `check` holds, re-checked at each record; fails after `timeoutMs`. */
  until<T>(check: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): boolean => {
        const value = check();
        if (value === undefined || value === false) return false;
        clearTimeout(timer);
        this.off('record', listener);
        resolve(value);
        return true;
      };
      const listener = (): void => {
        attempt();
      };
      const timer = setTimeout(() => {
        this.off('record', listener);
        reject(new Error(`timed out waiting for ${what}; problems so far: ${JSON.stringify(this.problems)}`));
      }, timeoutMs);
      if (!attempt()) this.on('record', listener);
    });
  }
}

export class MemoryStub implements RadioMemory {
  readonly values = new Map<string, unknown>();

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    this.values.set(key, structuredClone(value));
  }
}
