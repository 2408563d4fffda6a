// A TCP proxy between the nodes and Redis that the test cuts and restores: Redis keeps its data
// and keeps running (other test runs share it), while the nodes lose it, as in a network
// partition. Cut: every connection closed, none accepted; restored: accepted again, on the same port.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../support/ports.ts';

export class RedisProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async open(redisUrl: string): Promise<RedisProxy> {
    const proxy = new RedisProxy(new URL(redisUrl), await freePort());
    await proxy.restore();
    return proxy;
  }

  /** redis://127.0.0.1:<port> of the proxy, with the target's path (database number). */
  get url(): string {
    return `redis://127.0.0.1:${this.port}${this.target.pathname}`;
  }

  /** Accepts connections again and pipes each to Redis. */
  async restore(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.target.port || 6379), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  /** Closes every connection and stops accepting: the nodes see Redis gone. */
  async cut(): Promise<void> {
    const closed = new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    this.server = undefined;
  }
}
