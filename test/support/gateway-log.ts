// The JSON lines a gateway under test logs, kept as they are written (pass it to startGateway as
// the log destination): for tests of what the gateway says, and for waiting until it says it.
import { EventEmitter } from 'node:events';

export interface GatewayLogLine {
  level: number;
  msg: string;
  component?: string;
  node?: string;
  [field: string]: unknown;
}

export class GatewayLog extends EventEmitter<{ line: [line: GatewayLogLine] }> {
  readonly lines: GatewayLogLine[] = [];

  write(chunk: string): void {
    for (const text of chunk.split('\n')) {
      if (!text.trim()) continue;
      const line = JSON.parse(text) as GatewayLogLine;
      this.lines.push(line);
      this.emit('line', line);
    }
  }

  /** How many lines so far have a message that starts with `start`. */
  count(start: string): number {
    return this.lines.filter((line) => String(line.msg).startsWith(start)).length;
  }

  /** Resolves at the next line whose message starts with `start` (not one already written); fails after `timeoutMs`. */
  next(start: string, timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('line', listener);
        reject(new Error(`no "${start}" log line within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (line: GatewayLogLine) => {
        if (!String(line.msg).startsWith(start)) return;
        clearTimeout(timer);
        this.off('line', listener);
        resolve();
      };
      this.on('line', listener);
    });
  }

  /** Resolves once a line whose message starts with `start` has been written, already or later. */
  async until(start: string, timeoutMs = 5_000): Promise<void> {
    if (this.count(start) > 0) return;
    await this.next(start, timeoutMs);
  }
}
