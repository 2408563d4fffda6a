// A common GSM modem as seen from its serial port, for the agent's modem tests. socat joins two
// pseudo-terminals: the agent opens one end as it would /dev/ttyUSB2, the stand-in the other, and
// answers AT commands the way a typical USB modem does. Tests steer it: deliver an SMS, fail the
// next send, send a status report, hang and come back, talk garbage.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { decodePdu, type DecodedSubmit } from '../../../agent/src/pdu/index.ts';
import { deliverPdus, statusReportPdu, type BuiltPdu } from './pdu-builders.ts';

export interface StandinOptions {
  /** The SIM asks for this PIN first. */
  pin?: string;
  /** The AT+CNUM line the SIM answers with, such as +CNUM: "","+79165550001",145; none: it stores no number (ERROR). */
  ownNumberLine?: string;
  /** What AT+CREG? answers after "+CREG: 0,"; default 1 (registered, home network). A test may change it. */
  registration?: number;
}

export interface ReceivedSubmit {
  /** The length AT+CMGS announced. */
  lengthArgument: number;
  pdu: string;
  decoded: DecodedSubmit;
  /** The TP-MR the stand-in answered with. */
  reference: number;
}

interface StoredMessage extends BuiltPdu {
  /** 0 received unread, 1 received read. */
  stat: number;
}

const CTRL_Z = '\x1a';
const ESC = '\x1b';

export class ModemStandin extends EventEmitter {
  readonly commands: string[] = [];
  readonly submits: ReceivedSubmit[] = [];
  readonly storage = new Map<number, StoredMessage>();
  pinEntered = false;
  /** The CMS error for the n-th next part (0: the very next one). */
  private readonly sendFailures = new Map<number, number>();
  private partsSeen = 0;
  private hanging = false;
  private echo = true;
  private buffer = '';
  private awaitingPdu: number | undefined;
  private nextReference = 0x21;

  private constructor(
    readonly agentPath: string,
    private readonly directory: string,
    private readonly socat: ChildProcess,
    private readonly port: SerialPort,
    private readonly options: StandinOptions,
  ) {
    super();
    port.on('data', (chunk: Buffer) => this.onData(chunk.toString('latin1')));
  }

  static async start(options: StandinOptions = {}): Promise<ModemStandin> {
    const directory = await mkdtemp(join(tmpdir(), 'modem-standin-'));
    const agentPath = join(directory, 'agent');
    const modemPath = join(directory, 'modem');
    const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${agentPath}`, `pty,raw,echo=0,link=${modemPath}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => reject(new Error(`socat did not start: ${log}`)), 5000);
      socat.once('error', reject);
      socat.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('starting data transfer loop')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const port = new SerialPort({ path: modemPath, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
    return new ModemStandin(agentPath, directory, socat, port, options);
  }

  async close(): Promise<void> {
    if (this.port.isOpen) await new Promise<void>((resolve) => this.port.close(() => resolve()));
    if (this.socat.exitCode === null && this.socat.signalCode === null) {
      const exited = once(this.socat, 'exit');
      this.socat.kill('SIGTERM');
      await exited;
    }
    await rm(this.directory, { recursive: true, force: true });
  }

  /** Stores an SMS from `sender` (split into parts as a phone would) and announces each part with +CMTI. */
  deliverIncoming(sender: string, text: string, options: { announce?: boolean; reference?: number } = {}): number[] {
    const indexes: number[] = [];
    for (const built of deliverPdus(sender, text, { reference: options.reference ?? 42 })) {
      const index = this.freeIndex();
      this.storage.set(index, { ...built, stat: 0 });
      indexes.push(index);
      if (options.announce !== false) this.unsolicited(`+CMTI: "SM",${index}`);
    }
    return indexes;
  }

  /** The next part sent (after `skip` successful ones) is refused with +CMS ERROR: code. */
  failSend(code: number, skip = 0): void {
    this.sendFailures.set(this.partsSeen + skip, code);
  }

  sendStatusReport(reference: number, recipient: string, status: number): void {
    const built = statusReportPdu(reference, recipient, status);
    this.unsolicited(`+CDS: ${built.tpduLength}\r\n${built.pdu}`);
  }

  /** Stops answering anything until recover(). */
  hang(): void {
    this.hanging = true;
  }

  recover(): void {
    this.hanging = false;
    this.buffer = '';
    this.awaitingPdu = undefined;
  }

  emitGarbage(lines: string[]): void {
    for (const line of lines) this.port.write(`\r\n${line}\r\n`);
  }

  /** Resolves with the next command that matches. */
  waitForCommand(match: RegExp, timeoutMs = 5000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('command', listener);
        reject(new Error(`the stand-in saw no command matching ${match} within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (command: string): void => {
        if (!match.test(command)) return;
        clearTimeout(timer);
        this.off('command', listener);
        resolve(command);
      };
      this.on('command', listener);
    });
  }

  /** Resolves with the first command matching, counting those already seen. */
  seenCommand(match: RegExp, timeoutMs = 5000): Promise<string> {
    const seen = this.commands.find((command) => match.test(command));
    return seen !== undefined ? Promise.resolve(seen) : this.waitForCommand(match, timeoutMs);
  }

  /** Resolves once nothing is stored any more (every part deleted). */
  storageEmptied(timeoutMs = 5000): Promise<void> {
    if (this.storage.size === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('deleted', listener);
        reject(new Error(`the stand-in still stores ${[...this.storage.keys()].join(', ')} after ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (): void => {
        if (this.storage.size !== 0) return;
        clearTimeout(timer);
        this.off('deleted', listener);
        resolve();
      };
      this.on('deleted', listener);
    });
  }

  private freeIndex(): number {
    let index = 1;
    while (this.storage.has(index)) index++;
    return index;
  }

  private unsolicited(text: string): void {
    if (!this.hanging) this.port.write(`\r\n${text}\r\n`);
  }

  private respond(...lines: string[]): void {
    this.port.write(lines.map((line) => `\r\n${line}\r\n`).join(''));
  }

  private onData(text: string): void {
    if (this.hanging) return;
    this.buffer += text;
    for (;;) {
      if (this.awaitingPdu !== undefined) {
        const end = this.buffer.search(/[\x1a\x1b]/);
        if (end < 0) return;
        const pdu = this.buffer.slice(0, end).trim();
        const cancelled = this.buffer[end] === ESC;
        this.buffer = this.buffer.slice(end + 1);
        const length = this.awaitingPdu;
        this.awaitingPdu = undefined;
        if (cancelled) this.respond('OK');
        else this.onPdu(length, pdu);
        continue;
      }
      // A lone ESC outside a prompt is ignored, as modems do.
      this.buffer = this.buffer.replaceAll(ESC, '');
      const end = this.buffer.indexOf('\r');
      if (end < 0) return;
      const command = this.buffer.slice(0, end).replace(/\n/g, '').trim();
      this.buffer = this.buffer.slice(end + 1);
      if (!command) continue;
      if (this.echo) this.port.write(`${command}\r`);
      this.commands.push(command);
      this.emit('command', command);
      this.onCommand(command);
    }
  }

  private onCommand(command: string): void {
    const upper = command.toUpperCase();
    const simLocked = this.options.pin !== undefined && !this.pinEntered;
    if (upper === 'AT' || upper === 'AT+CMEE=1' || upper === 'AT+CMGF=0' || upper.startsWith('AT+CNMI=') || upper === 'AT+CNMA' || upper === 'AT+COPS=3,0') {
      if (simLocked && (upper.startsWith('AT+CMGF') || upper.startsWith('AT+CNMI'))) return this.respond('+CMS ERROR: 311');
      return this.respond('OK');
    }
    if (upper === 'ATE0' || upper === 'ATE1') {
      this.echo = upper === 'ATE1';
      return this.respond('OK');
    }
    if (upper === 'AT+CPIN?') return this.respond(`+CPIN: ${simLocked ? 'SIM PIN' : 'READY'}`, 'OK');
    const pin = /^AT\+CPIN="?([^"]*)"?$/i.exec(command);
    if (pin) {
      if (pin[1] !== this.options.pin) return this.respond('+CME ERROR: 16');
      this.pinEntered = true;
      return this.respond('OK');
    }
    if (simLocked) return this.respond('+CME ERROR: 11');
    if (upper === 'AT+CSMS=0') return this.respond('+CSMS: 1,1,1', 'OK');
    if (upper === 'AT+CPMS?') return this.respond(`+CPMS: "SM",${this.storage.size},30,"SM",${this.storage.size},30,"SM",${this.storage.size},30`, 'OK');
    if (upper.startsWith('AT+CPMS=')) return this.respond(`+CPMS: ${this.storage.size},30,${this.storage.size},30,${this.storage.size},30`, 'OK');
    if (upper === 'AT+CGMI') return this.respond('Standin', 'OK');
    if (upper === 'AT+CGMM') return this.respond('GSM Modem 1', 'OK');
    if (upper === 'AT+CREG?') return this.respond(`+CREG: 0,${this.options.registration ?? 1}`, 'OK');
    if (upper === 'AT+COPS?') return this.respond('+COPS: 0,0,"Standin Mobile",7', 'OK');
    if (upper === 'AT+CSQ') return this.respond('+CSQ: 20,99', 'OK');
    if (upper === 'AT+CBC') return this.respond('+CBC: 0,80', 'OK');
    if (upper === 'AT+CNUM' && this.options.ownNumberLine) return this.respond(this.options.ownNumberLine, 'OK');
    const send = /^AT\+CMGS=(\d+)$/.exec(upper);
    if (send) {
      this.awaitingPdu = Number(send[1]);
      this.port.write('\r\n> ');
      return;
    }
    const read = /^AT\+CMGR=(\d+)$/.exec(upper);
    if (read) {
      const stored = this.storage.get(Number(read[1]));
      if (!stored) return this.respond('OK');
      const lines = [`+CMGR: ${stored.stat},,${stored.tpduLength}`, stored.pdu, 'OK'];
      stored.stat = 1;
      return this.respond(...lines);
    }
    if (upper === 'AT+CMGL=4') {
      const lines = [...this.storage].flatMap(([index, stored]) => [`+CMGL: ${index},${stored.stat},,${stored.tpduLength}`, stored.pdu]);
      return this.respond(...lines, 'OK');
    }
    const remove = /^AT\+CMGD=(\d+)$/.exec(upper);
    if (remove) {
      this.storage.delete(Number(remove[1]));
      this.emit('deleted', Number(remove[1]));
      return this.respond('OK');
    }
    return this.respond('ERROR');
  }

  private onPdu(lengthArgument: number, pdu: string): void {
    const part = this.partsSeen++;
    const failure = this.sendFailures.get(part);
    if (failure !== undefined) {
      this.sendFailures.delete(part);
      return this.respond(`+CMS ERROR: ${failure}`);
    }
    let decoded;
    try {
      decoded = decodePdu(pdu);
    } catch {
      return this.respond('+CMS ERROR: 304');
    }
    if (decoded.type !== 'submit') return this.respond('+CMS ERROR: 304');
    const reference = this.nextReference++ & 0xff;
    this.submits.push({ lengthArgument, pdu, decoded, reference });
    this.respond(`+CMGS: ${reference}`, 'OK');
    this.emit('submit', this.submits.at(-1));
  }
}
