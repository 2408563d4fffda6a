// An SMTP client written line by line on a plain socket, for the drills that misbehave on
// purpose: it can stop mid-DATA, trickle a byte at a time, or stream megabytes without ever
// sending the final dot, and it tells when each reply came and how many bytes it had written
// by then. A mail library would do none of that.
import { connect, type Socket } from 'node:net';

export interface SmtpReply {
  code: number;
  /** The reply's lines, joined. */
  text: string;
  /** performance.now() when its last line arrived. */
  at: number;
  /** Bytes this client had written when the reply arrived (what the gateway could have read). */
  bytesWritten: number;
}

export class SmtpLineClient {
  private buffered = '';
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private readonly waiting: ((reply: SmtpReply | undefined) => void)[] = [];
  closed = false;
  /** performance.now() when the gateway closed the connection (or it broke). */
  closedAt: number | undefined;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.take(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.closedAt = performance.now();
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }

  /** A connection from `from` (a local address of 127/8); the greeting is its first reply. */
  static open(port: number, from: string): Promise<SmtpLineClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => {
        socket.off('error', reject);
        resolve(new SmtpLineClient(socket));
      });
      socket.once('error', reject);
    });
  }

  /** The next reply, or undefined when the connection closed first or `timeoutMs` passed. */
  reply(timeoutMs = 10_000): Promise<SmtpReply | undefined> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (reply: SmtpReply | undefined) => {
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.push(waiter);
    });
  }

  /** Sends one command line; resolves with its reply. */
  command(line: string, timeoutMs?: number): Promise<SmtpReply | undefined> {
    this.socket.write(`${line}\r\n`);
    return this.reply(timeoutMs);
  }

  /** EHLO and AUTH PLAIN with an API key as password: the AUTH reply (235 when logged in). */
  async login(key: string): Promise<SmtpReply | undefined> {
    const ehlo = await this.command('EHLO drill.example.org');
    if (ehlo?.code !== 250) return ehlo;
    return this.command(`AUTH PLAIN ${Buffer.from(`\0anyone\0${key}`).toString('base64')}`);
  }

  /** Logged in with `key`, MAIL FROM, one RCPT TO and DATA: the reply to DATA (354 to go on), or the first refusal. */
  async startData(key: string, recipient: string): Promise<SmtpReply | undefined> {
    const auth = await this.login(key);
    if (auth?.code !== 235) return auth;
    const from = await this.command('MAIL FROM:<drill@example.org>');
    if (from?.code !== 250) return from;
    const to = await this.command(`RCPT TO:<${recipient}>`);
    if (to?.code !== 250) return to;
    return this.command('DATA');
  }

  /** Writes raw bytes; resolves once the socket takes more (false when it closed meanwhile). */
  async write(bytes: Buffer | string): Promise<boolean> {
    if (this.closed) return false;
    if (this.socket.write(bytes)) return true;
    return new Promise((resolve) => {
      const done = (open: boolean) => {
        this.socket.off('drain', drained);
        this.socket.off('close', gone);
        resolve(open);
      };
      const drained = () => done(true);
      const gone = () => done(false);
      this.socket.once('drain', drained);
      this.socket.once('close', gone);
    });
  }

  /** Whether a reply has come that nobody has read yet. */
  get hasReply(): boolean {
    return this.replies.length > 0;
  }

  close(): void {
    this.socket.destroy();
  }

  private take(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline).replace(/\r$/, '');
      this.buffered = this.buffered.slice(newline + 1);
      this.lines.push(line);
      // "250-..." goes on; "250 ..." (or a bare code) ends the reply.
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = { code: Number(line.slice(0, 3)), text: this.lines.join(' | '), at: performance.now(), bytesWritten: this.socket.bytesWritten };
        this.lines = [];
        const waiter = this.waiting.shift();
        if (waiter) waiter(reply);
        else this.replies.push(reply);
      }
    }
  }
}
