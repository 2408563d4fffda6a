// A TCP relay between the agent and the gateway's broker that a test can cut, as a phone's
// network goes away, and that can speak TLS on the agent's side, as a TLS terminator in front of
// a gateway does.
import net from 'node:net';
import tls from 'node:tls';

export class Relay {
  private readonly sockets = new Set<net.Socket>();
  private open = true;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Relays 127.0.0.1:<port> to the target port; with `tlsOptions`, the agent's side is TLS. */
  static async start(targetPort: number, tlsOptions?: tls.TlsOptions): Promise<Relay> {
    let relay: Relay | undefined;
    const onClient = (client: net.Socket) => {
      if (!relay?.open) return void client.destroy();
      const upstream = net.connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        relay.sockets.add(socket);
        socket.on('close', () => relay?.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    };
    const server = tlsOptions ? tls.createServer(tlsOptions, onClient) : net.createServer(onClient);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new Relay(server, (server.address() as net.AddressInfo).port);
    return relay;
  }

  /** Cuts every connection and refuses new ones until restore(). */
  cut(): void {
    this.open = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
