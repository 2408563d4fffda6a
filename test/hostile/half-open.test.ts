// Hostile clients that open HTTP connections and never finish a request. A connection must send
// its headers within HTTP_HEADERS_TIMEOUT (then 408 and closed), one client address holds at most
// HTTP_MAX_CONNECTIONS_PER_ADDRESS connections, and the server at most HTTP_MAX_CONNECTIONS, so
// the process keeps file descriptors for the phones' MQTT connections. Small limits here.
import { expect } from 'chai';
import type { Socket } from 'node:net';
import { TrustedProxies } from '../../src/common/client-address.ts';
import { defaultMaxConnections, FD_RESERVE, openFileLimit } from '../../src/http/server-limits.ts';
import { useGateway } from '../support/use-gateway.ts';
import { openSocket, send, untilClosed } from '../support/raw-http.ts';

const HEADERS_TIMEOUT_MS = 500;

/** True when the server closed the socket within `ms`; false when it is still open then. */
async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return untilClosed(socket, ms).then(
    () => true,
    () => false,
  );
}

describe('hostile clients: half-open HTTP connections', function () {
  this.timeout(30_000);
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  async function open(gateway: Parameters<typeof openSocket>[0], from?: string): Promise<Socket> {
    const socket = await openSocket(gateway, from);
    sockets.push(socket);
    return socket;
  }

  describe('with a header timeout and a cap per address', () => {
    const PER_ADDRESS = 5;
    const fx = useGateway({
      tenant: 'none',
      config: { httpLimits: { headersTimeoutMs: HEADERS_TIMEOUT_MS, bodyTimeoutMs: 10_000, maxConnectionsPerAddress: PER_ADDRESS, maxConnections: undefined } },
    });

    it('when a connection sends a request line and one header and then nothing, then it gets 408 and is closed within the header timeout', async () => {
      const socket = await open(fx.gateway);
      socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n');
      const started = Date.now();
      const answer = await untilClosed(socket, HEADERS_TIMEOUT_MS + 2_000);
      expect(answer).to.match(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).to.be.below(HEADERS_TIMEOUT_MS + 1_500);
    });

    it('when a connection sends nothing at all, then it is closed within the header timeout too', async () => {
      const socket = await open(fx.gateway);
      expect(await closedWithin(socket, HEADERS_TIMEOUT_MS + 2_000)).to.equal(true);
    });

    it(`when one address holds ${PER_ADDRESS} connections, then its next one is closed at once, another address is served, and a freed place can be taken again`, async () => {
      const held: Socket[] = [];
      for (let i = 0; i < PER_ADDRESS; i++) held.push(await open(fx.gateway, '127.0.0.7'));
      const before = fx.gateway.services.metrics.value('http_connections_refused_total', { reason: 'per_address' });
      const extra = await open(fx.gateway, '127.0.0.7');
      expect(await closedWithin(extra, 200), 'the connection past the cap').to.equal(true);
      expect(fx.gateway.services.metrics.value('http_connections_refused_total', { reason: 'per_address' })).to.equal(before + 1);
      expect((await send(fx.gateway, { path: '/healthz', from: '127.0.0.8' })).status, 'another address').to.equal(200);
      held[0]!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await send(fx.gateway, { path: '/healthz', from: '127.0.0.7' })).status, 'a freed place').to.equal(200);
    });
  });

  describe('with a trusted load balancer', () => {
    const fx = useGateway({
      tenant: 'none',
      config: {
        trustedProxies: TrustedProxies.parse(['127.0.0.1']),
        httpLimits: { headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, maxConnectionsPerAddress: 2, maxConnections: undefined },
      },
    });

    it('when the balancer holds more connections than the cap per address, then none is closed: every client comes through it', async () => {
      const held: Socket[] = [];
      for (let i = 0; i < 4; i++) held.push(await open(fx.gateway, '127.0.0.1'));
      expect(await closedWithin(held[3]!, 200)).to.equal(false);
    });
  });

  describe('with a cap on all connections', () => {
    const MAX = 20;
    const fx = useGateway({
      config: { httpLimits: { headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, maxConnectionsPerAddress: 1_000, maxConnections: MAX } },
    });

    it(`when ${MAX} HTTP connections are open, then the next is closed at once, and a phone still connects over MQTT`, async () => {
      // Connections that made a request and are kept alive: those that never make one could only
      // fill a quarter of the places (test/hostile/waiting-rooms.test.ts).
      for (let i = 0; i < MAX; i++) {
        const socket = await open(fx.gateway, `127.0.1.${i + 1}`);
        const answered = new Promise((resolve) => socket.once('data', resolve));
        socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
        await answered;
      }
      const extra = await open(fx.gateway, '127.0.2.1');
      expect(await closedWithin(extra, 200)).to.equal(true);
      const { device, token } = await fx.registerDevice();
      const phone = await fx.clients.device(device.id, token);
      expect(phone.closed).to.equal(false);
    });
  });

  it('by default, HTTP may use a quarter of the file descriptors left after the reserve, so the rest stays for MQTT, SMPP, SMTP and outbound connections', () => {
    expect(defaultMaxConnections(20_000)).to.equal((20_000 - FD_RESERVE) / 4);
    expect(defaultMaxConnections(300), 'a tiny limit still serves some').to.equal(64);
    expect(openFileLimit()).to.be.above(0);
  });
});
