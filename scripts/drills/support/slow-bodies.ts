// The slow-body attacker: connections that each send POST /api/ext/v1/sms with a valid key and
// Content-Length: 1000, then one byte, and nothing more. Whenever the gateway closes one (a 408
// at the body deadline), another takes its place, so that `count` hang at all times until stop().
import { connect, type Socket } from 'node:net';

const REOPEN_AFTER_MS = 200;

export interface SlowBodyTally {
  /** Connections opened in all. */
  opened: number;
  /** What the gateway answered before closing a connection, by status line ("none": closed silently). */
  answers: Map<string, number>;
}

export class SlowBodies {
  private readonly sockets = new Set<Socket>();
  private running = false;
  readonly tally: SlowBodyTally = { opened: 0, answers: new Map() };

  constructor(
    private readonly port: number,
    private readonly key: string,
    private readonly count: number,
    private readonly from = '127.0.0.1',
  ) {}

  /** Opens the connections; resolves once all have sent their first byte. */
  async start(): Promise<void> {
    this.running = true;
    await Promise.all(Array.from({ length: this.count }, () => this.openOne()));
  }

  /** Connections hanging now. */
  get hanging(): number {
    return this.sockets.size;
  }

  stop(): SlowBodyTally {
    this.running = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return this.tally;
  }

  private openOne(): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect({ port: this.port, host: '127.0.0.1', localAddress: this.from }, () => {
        socket.write(`POST /api/ext/v1/sms HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${this.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
        resolve();
      });
      this.tally.opened++;
      this.sockets.add(socket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', () => resolve());
      socket.on('close', () => {
        const wasOurs = this.sockets.delete(socket);
        if (!wasOurs) return;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'none';
        this.tally.answers.set(status, (this.tally.answers.get(status) ?? 0) + 1);
        // Not at once: a connection refused at the door would otherwise spin in a tight loop.
        if (this.running) setTimeout(() => this.running && void this.openOne(), REOPEN_AFTER_MS);
      });
    });
  }
}

export function describeAnswers(answers: Map<string, number>): string {
  return answers.size === 0 ? 'none' : [...answers].map(([status, n]) => `${n}x ${status}`).join(', ');
}
