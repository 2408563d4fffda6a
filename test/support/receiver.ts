// A real local webhook receiver: records every request and answers what the test scripts.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';

export interface Received {
  /** The request's path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  status: number;
}

export class Receiver extends EventEmitter<{ request: [received: Received] }> {
  readonly received: Received[] = [];
  /** Decides the status of each answer; 204 by default. */
  respond: (received: Omit<Received, 'status'>, index: number) => number = () => 204;
  /** The body of each answer; none by default. */
  answerBody: (received: Omit<Received, 'status'>, index: number) => string = () => '';
  private server: Server | undefined;

  async start(port = 0): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const partial = { path: request.url ?? '', headers: request.headers, body, json: safeJson(body) };
        const status = this.respond(partial, this.received.length);
        const answer = status === 204 ? '' : this.answerBody(partial, this.received.length);
        const received = { ...partial, status };
        this.received.push(received);
        response.writeHead(status).end(answer);
        this.emit('request', received);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Events of a type that were answered 2xx. */
  delivered(type?: string): any[] {
    return this.received.filter((r) => r.status < 300 && (!type || r.json?.type === type)).map((r) => r.json);
  }

  /** Resolves once `count` requests matching `accept` have been answered. */
  async waitFor(count: number, accept: (received: Received) => boolean = () => true, timeoutMs = 10_000): Promise<Received[]> {
    const matching = () => this.received.filter(accept);
    if (matching().length >= count) return matching();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('request', listener);
        reject(new Error(`receiver got ${matching().length} of ${count} expected requests within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = () => {
        if (matching().length < count) return;
        clearTimeout(timer);
        this.off('request', listener);
        resolve(matching());
      };
      this.on('request', listener);
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
