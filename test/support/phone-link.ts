// The network between one phone and the gateway's nodes, as a test needs it to be: a TCP link
// the phone connects through, that forwards to one node, cuts the connection the moment the
// phone writes a given packet (before a byte of it reaches the node), refuses the phone while it
// is away, and then lets it reconnect to another node, as a load balancer sends a reconnecting
// phone wherever it likes. The phone's MQTT client never knows: it reconnects to the same address.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

interface CutOn {
  marker: Buffer;
  cut: () => void;
}

export class PhoneLink {
  private readonly sockets = new Set<Socket>();
  /** The node's MQTT port; undefined while the phone is away (connections closed at once). */
  private target: number | undefined;
  private cutOn: CutOn | undefined;

  private constructor(private readonly server: Server) {}

  /** A link to the node listening for MQTT on `port`. */
  static async open(port: number): Promise<PhoneLink> {
    const server = createServer();
    const link = new PhoneLink(server);
    link.target = port;
    server.on('connection', (phone) => link.forward(phone));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return link;
  }

  /** mqtt://127.0.0.1:<port> of the link: the phone's broker URL. */
  get url(): string {
    return `mqtt://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * Resolves once the phone wrote a chunk holding `marker`: that chunk is dropped, the
   * connection reset, and the phone refused until reconnectTo().
   */
  cutWhenPhoneWrites(marker: string): Promise<void> {
    return new Promise((resolve) => {
      this.cutOn = { marker: Buffer.from(marker), cut: resolve };
    });
  }

  /** From now on the phone's connections go to the node listening for MQTT on `port`. */
  reconnectTo(port: number): void {
    this.target = port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private forward(phone: Socket): void {
    const port = this.target;
    if (port === undefined) return void phone.destroy();
    const node = connect(port, '127.0.0.1');
    for (const socket of [phone, node]) {
      this.sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        phone.destroy();
        node.destroy();
      });
    }
    phone.on('data', (chunk: Buffer) => {
      const cutOn = this.cutOn;
      if (cutOn && chunk.includes(cutOn.marker)) {
        this.cutOn = undefined;
        this.target = undefined;
        phone.resetAndDestroy();
        node.destroy();
        cutOn.cut();
        return;
      }
      node.write(chunk);
    });
    node.pipe(phone);
  }
}
