// One conversation with a modem over its serial port: commands go out one at a time, each waits
// for its final result (OK, ERROR, +CME ERROR, +CMS ERROR), and everything the modem says on its
// own (new SMS, status reports, RING...) is handed to a listener whenever it arrives, even in the
// middle of a response. A command that gets no answer in time means the modem hung: the channel
// fails every command from then on and says so once, so its owner can reopen the port.
import type { Duplex } from 'node:stream';
import { AtChannelClosedError, AtCommandError, AtTimeoutError } from './at-errors.ts';
import { announcedLength, announcesPdu, isUnsolicited, parseStandalone, type UnsolicitedEvent } from './unsolicited.ts';

export interface AtChannelOptions {
  /** Default per-command timeout. */
  timeoutMs: number;
  onUnsolicited(event: UnsolicitedEvent): void;
  /** The modem stopped answering a command. Called once; the channel is closed by then. */
  onHang(error: AtTimeoutError): void;
  /** The port closed or failed under the channel (not called for close()). */
  onClosed(error: Error): void;
}

export interface CommandOptions {
  timeoutMs?: number;
}

interface PendingCommand {
  command: string;
  /** A PDU to write after the > prompt (AT+CMGS). */
  pdu?: string;
  timeoutMs: number;
  /** "+CSQ:" for AT+CSQ: a line with it belongs to the response even when it also looks unsolicited. */
  responsePrefix?: string;
  lines: string[];
  promptSeen: boolean;
  resolve(lines: string[]): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

const CTRL_Z = '\x1a';
const ESC = '\x1b';
// Longer than any line a modem sends (a PDU is at most ~360 hex digits): beyond it the input is noise.
const MAX_LINE = 4096;

export class AtChannel {
  /** Lines that were neither a response nor a known notice: counted, never acted on. */
  ignoredLines = 0;
  private buffer = '';
  private readonly queue: PendingCommand[] = [];
  private current: PendingCommand | undefined;
  private awaitingPdu: { type: 'direct-message' | 'direct-report'; tpduLength: number | undefined } | undefined;
  private closedWith: Error | undefined;

  constructor(
    private readonly stream: Duplex,
    private readonly options: AtChannelOptions,
  ) {
    stream.on('data', this.onData);
    stream.on('error', this.onStreamEnd);
    stream.on('close', this.onStreamEnd);
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Runs a command; resolves with the lines between it and OK. */
  command(command: string, options: CommandOptions = {}): Promise<string[]> {
    return this.enqueue(command, undefined, options);
  }

  /** AT+CMGS=n: waits for the > prompt, then writes the PDU and Ctrl-Z. */
  commandWithPdu(command: string, pdu: string, options: CommandOptions = {}): Promise<string[]> {
    return this.enqueue(command, pdu, options);
  }

  /** ESC ends a > prompt a previous session may have left open, so the next AT is read as a command. */
  cancelPrompt(): void {
    if (!this.isClosed) this.stream.write(ESC);
  }

  /** Stops the channel: every queued or running command fails with AtChannelClosedError. */
  close(reason = 'the channel was closed'): void {
    this.shutDown(new AtChannelClosedError(reason));
  }

  private enqueue(command: string, pdu: string | undefined, options: CommandOptions): Promise<string[]> {
    if (this.closedWith) return Promise.reject(new AtChannelClosedError(this.closedWith.message));
    return new Promise((resolve, reject) => {
      const prefix = /^AT([+^][A-Z0-9]+)/i.exec(command)?.[1];
      this.queue.push({
        command,
        ...(pdu !== undefined ? { pdu } : {}),
        timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
        ...(prefix ? { responsePrefix: `${prefix.toUpperCase()}:` } : {}),
        lines: [],
        promptSeen: false,
        resolve,
        reject,
      });
      this.next();
    });
  }

  private next(): void {
    if (this.current || this.closedWith) return;
    const pending = this.queue.shift();
    if (!pending) return;
    this.current = pending;
    pending.timer = setTimeout(() => this.onTimeout(pending), pending.timeoutMs);
    this.stream.write(`${pending.command}\r`);
  }

  private finish(result: { lines: string[] } | { error: Error }): void {
    const pending = this.current;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.current = undefined;
    if ('error' in result) pending.reject(result.error);
    else pending.resolve(result.lines);
    this.next();
  }

  private onTimeout(pending: PendingCommand): void {
    if (this.current !== pending) return;
    const error = new AtTimeoutError(pending.command, pending.timeoutMs);
    // Not finish(): that would start the next queued command on a modem that is not listening.
    this.current = undefined;
    pending.reject(error);
    this.shutDown(new AtChannelClosedError(`the modem stopped answering (${pending.command})`));
    this.options.onHang(error);
  }

  private readonly onStreamEnd = (error?: Error): void => {
    if (this.closedWith) return;
    const closed = new AtChannelClosedError(error ? `the port failed: ${error.message}` : 'the port closed');
    this.shutDown(closed);
    this.options.onClosed(closed);
  };

  private shutDown(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.stream.off('data', this.onData);
    const pending = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const command of pending) {
      clearTimeout(command.timer);
      command.reject(error);
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    // latin1 maps every byte to one character: noise can never break a multi-byte sequence.
    this.buffer += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    let end: number;
    while ((end = this.buffer.search(/[\r\n]/)) >= 0) {
      const line = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end + 1);
      if (line) this.onLine(line);
      if (this.closedWith) return;
    }
    // The > prompt comes without a line end.
    if (this.current?.pdu !== undefined && !this.current.promptSeen && this.buffer.trim() === '>') {
      this.buffer = '';
      this.onPrompt(this.current);
    }
    if (this.buffer.length > MAX_LINE) {
      this.buffer = '';
      this.ignoredLines++;
    }
  };

  private onPrompt(pending: PendingCommand): void {
    pending.promptSeen = true;
    this.stream.write(`${pending.pdu}${CTRL_Z}`);
  }

  private onLine(line: string): void {
    // Control characters (other than tab) never appear in a modem's text: line noise.
    if (/[\x00-\x08\x0b-\x1f\x7f]/.test(line)) {
      this.ignoredLines++;
      return;
    }
    if (this.awaitingPdu) {
      const announced = this.awaitingPdu;
      this.awaitingPdu = undefined;
      if (/^[0-9A-Fa-f]+$/.test(line)) {
        this.emit({ type: announced.type, pdu: line, tpduLength: announced.tpduLength });
        return;
      }
      // The PDU never came; the line is read for what it is.
      this.ignoredLines++;
    }
    const pending = this.current;
    if (pending && (line === '>' || line === '> ') && pending.pdu !== undefined && !pending.promptSeen) {
      this.onPrompt(pending);
      return;
    }
    if (pending && this.isEcho(pending, line)) return;
    if (pending) {
      const final = finalResult(pending.command, line);
      if (final) {
        this.finish(final === 'OK' ? { lines: pending.lines } : { error: final });
        return;
      }
      if (pending.responsePrefix && line.toUpperCase().startsWith(pending.responsePrefix)) {
        pending.lines.push(line);
        return;
      }
    }
    const pduType = announcesPdu(line);
    if (pduType) {
      this.awaitingPdu = { type: pduType, tpduLength: announcedLength(line) };
      return;
    }
    if (isUnsolicited(line)) {
      this.emit(parseStandalone(line));
      return;
    }
    if (pending) {
      pending.lines.push(line);
      return;
    }
    this.ignoredLines++;
  }

  /** With echo on, the modem repeats the command, and after the prompt the PDU. */
  private isEcho(pending: PendingCommand, line: string): boolean {
    if (line.toUpperCase() === pending.command.toUpperCase()) return true;
    return pending.pdu !== undefined && line.replace(CTRL_Z, '').toUpperCase() === pending.pdu.toUpperCase();
  }

  private emit(event: UnsolicitedEvent): void {
    try {
      this.options.onUnsolicited(event);
    } catch {
      // The listener's own failure must not break the reading of the port.
    }
  }
}

function finalResult(command: string, line: string): 'OK' | AtCommandError | undefined {
  if (line === 'OK') return 'OK';
  if (line === 'ERROR' || line === 'COMMAND NOT SUPPORT') return new AtCommandError(command, 'ERROR', undefined);
  const coded = /^\+(CME|CMS) ERROR:\s*(.*)$/.exec(line);
  if (!coded) return undefined;
  const kind = coded[1] === 'CME' ? '+CME ERROR' : '+CMS ERROR';
  const detail = coded[2]!.trim();
  return /^\d+$/.test(detail) ? new AtCommandError(command, kind, Number(detail)) : new AtCommandError(command, kind, undefined, detail);
}
