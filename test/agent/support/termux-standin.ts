// A Termux phone for the Termux backend's tests: the stand-in commands of termux-bin/, a state
// directory the test fills (inbox, call log, battery...), the record of what was run, and the
// memory and handlers the agent would give the radio.
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RadioHandlers, RadioMemory, ReceivedCall, ReceivedSms, DeliveryReport } from '../../../agent/src/radio/radio.ts';
import type { TermuxOptions } from '../../../agent/src/radio/termux/index.ts';

export const STANDIN_BIN = fileURLToPath(new URL('./termux-bin/', import.meta.url));

export interface InboxRow {
  _id: number;
  threadid: number;
  type: 'inbox';
  read: boolean;
  address: string;
  number: string;
  received: string;
  body: string;
}

export interface CallRow {
  name: string;
  phone_number: string;
  type: string;
  date: string;
  duration: string;
  sim_id: string;
}

export interface CommandCall {
  command: string;
  args: string[];
  stdin?: string;
}

export interface Failure {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  once?: boolean;
  hangMs?: number;
}

export class TermuxPhone {
  private constructor(readonly dir: string) {}

  static async create(): Promise<TermuxPhone> {
    return new TermuxPhone(await mkdtemp(join(tmpdir(), 'termux-standin-')));
  }

  /** Options that make the radio run the stand-ins, polling quickly. */
  options(extra: TermuxOptions = {}): TermuxOptions {
    return {
      pollIntervalMs: 20,
      commandTimeoutMs: 10_000,
      env: {
        ...process.env,
        PATH: `${STANDIN_BIN}${delimiter}${process.env.PATH ?? ''}`,
        TERMUX_STANDIN_STATE: this.dir,
        TERMUX_STANDIN_LOG: join(this.dir, 'calls.log'),
        TERMUX_STANDIN_NODE: process.execPath,
      },
      ...extra,
    };
  }

  async setInbox(rows: InboxRow[]): Promise<void> {
    await this.writeState('inbox.json', rows);
  }

  async setCallLog(rows: CallRow[]): Promise<void> {
    await this.writeState('call-log.json', rows);
  }

  async setBattery(answer: object): Promise<void> {
    await this.writeState('battery.json', answer);
  }

  async setDeviceInfo(answer: object): Promise<void> {
    await this.writeState('device-info.json', answer);
  }

  async setCellInfo(answer: object[]): Promise<void> {
    await this.writeState('cell-info.json', answer);
  }

  async setProperties(properties: Record<string, string>): Promise<void> {
    await this.writeState('properties.json', properties);
  }

  async failNext(command: string, failure: Failure): Promise<void> {
    await this.writeState(`fail-${command}.json`, failure);
  }

  async stopFailing(command: string): Promise<void> {
    await rm(join(this.dir, `fail-${command}.json`), { force: true });
  }

  /** Every command run so far, in order. */
  async commandsRun(): Promise<CommandCall[]> {
    const text = await readFile(join(this.dir, 'calls.log'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as CommandCall);
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private async writeState(name: string, value: unknown): Promise<void> {
    // Written whole and renamed into place, so a stand-in never reads half a file.
    const temporary = join(this.dir, `.${name}.tmp`);
    await writeFile(temporary, JSON.stringify(value));
    await rename(temporary, join(this.dir, name));
  }
}

export function inboxRow(id: number, address: string, body: string, received = '2024-05-01 10:00:00'): InboxRow {
  return { _id: id, threadid: 1, type: 'inbox', read: false, address, number: address, received, body };
}

/** The radio memory the agent keeps in its state directory, here in a Map; tests can wait for a write. */
export class TestMemory implements RadioMemory {
  readonly values = new Map<string, unknown>();
  private waiters: { key: string; resolve: () => void }[] = [];

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    this.values.set(key, structuredClone(value));
    const [ready, waiting] = partition(this.waiters, (waiter) => waiter.key === key);
    this.waiters = waiting;
    for (const waiter of ready) waiter.resolve();
  }

  /** Resolves at the next write of `key`. */
  nextWrite(key: string): Promise<void> {
    return bounded(new Promise((resolve) => this.waiters.push({ key, resolve })), `a write of ${key}`);
  }
}

/** The agent's side: records what the radio hands over; `refuse` decides which to reject. */
export class RecordingHandlers implements RadioHandlers {
  readonly sms: ReceivedSms[] = [];
  readonly calls: ReceivedCall[] = [];
  readonly problems: string[] = [];
  /** Every hand-over attempt, taken or refused, by id. */
  readonly attempts: string[] = [];
  refuse: (id: string) => boolean = () => false;
  private checks: (() => void)[] = [];

  async incoming(sms: ReceivedSms): Promise<void> {
    this.attempts.push(sms.id);
    if (this.refuse(sms.id)) {
      this.changed();
      throw new Error('journal not writable');
    }
    this.sms.push(sms);
    this.changed();
  }

  async delivery(_report: DeliveryReport): Promise<void> {}

  async call(call: ReceivedCall): Promise<void> {
    this.attempts.push(call.id);
    if (this.refuse(call.id)) {
      this.changed();
      throw new Error('journal not writable');
    }
    this.calls.push(call);
    this.changed();
  }

  problem(message: string): void {
    this.problems.push(message);
    this.changed();
  }

  /** Resolves once `condition` holds, checked after each hand-over or problem. */
  until(condition: () => boolean, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return bounded(
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (!condition()) return;
          this.checks = this.checks.filter((other) => other !== check);
          resolve();
        };
        this.checks.push(check);
      }),
      what,
    );
  }

  private changed(): void {
    for (const check of [...this.checks]) check();
  }
}

const WAIT_LIMIT_MS = 8_000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${WAIT_LIMIT_MS} ms for ${what}`)), WAIT_LIMIT_MS);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}
