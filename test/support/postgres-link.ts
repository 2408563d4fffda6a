// A TCP link between a gateway under test and the real PostgreSQL server that a test can cut and
// restore: the database outage of a drill, without stopping the server the rest of the suite uses.
// While cut, the link refuses connections (as a stopped server does) and has reset the open ones.
// A blackhole is the other fault: the open connections stay open but carry nothing more either
// way (a failover behind a virtual address, a firewall that forgot their state), while new
// connections through the link work.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class PostgresLink {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Each open connection's two sockets, to stop forwarding between them. */
  private readonly pairs = new Set<[Socket, Socket]>();
  /** Sockets of the connections a blackhole swallowed. */
  private readonly swallowed = new Set<Socket>();
  private port = 0;

  private constructor(private readonly target: URL) {}

  /** Opens a link to the server `databaseUrl` names; `url` is the same database through the link. */
  static async open(databaseUrl: string): Promise<PostgresLink> {
    const link = new PostgresLink(new URL(databaseUrl));
    await link.listen();
    return link;
  }

  get url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  get isCut(): boolean {
    return this.server === undefined;
  }

  /** Resets every open connection and refuses new ones until `restore`. */
  async cut(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
    this.pairs.clear();
    this.swallowed.clear();
    await closed;
  }

  /**
   * Stops forwarding on every open connection without closing it: what either side sends is read
   * and dropped (their writes succeed, as into a network that loses them). Connections opened
   * afterwards are forwarded as before. Returns how many connections were swallowed.
   */
  blackhole(): number {
    const swallowed = this.pairs.size;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      for (const socket of [client, upstream]) {
        socket.on('data', () => {});
        socket.resume();
        this.swallowed.add(socket);
      }
    }
    this.pairs.clear();
    return swallowed;
  }

  /** Resets the connections a blackhole swallowed (as a firewall that finally answers). */
  resetSwallowed(): void {
    for (const socket of this.swallowed) socket.resetAndDestroy();
    this.swallowed.clear();
  }

  /** Accepts connections again, on the same port. */
  async restore(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  private forward(client: Socket): void {
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const socket of pair) {
      this.sockets.add(socket);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.swallowed.delete(socket);
        this.pairs.delete(pair);
      });
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
