// TRUSTED_PROXIES: behind a load balancer every connection comes from the balancer, so limits per
// client address must count the address it forwards (X-Forwarded-For over HTTP and WebSocket,
// the PROXY protocol over MQTT/TCP), and only from the balancer: anyone else's headers are ignored.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { TrustedProxies } from '../../src/common/client-address.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';

const BAD_KEY = 'sgw_0123456789_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const LIMIT = 3;

describe('trusted proxies: the client a load balancer names', () => {
  const fx = useGateway({
    config: {
      trustedProxies: TrustedProxies.parse(['127.0.0.1']),
      authThrottle: { failureLimit: LIMIT, windowMs: 60_000, mqttRefusalDelayMs: 10 },
    },
  });

  const devices = (forwardedFor: string, key = BAD_KEY) =>
    fetch(`${fx.baseUrl}/api/ext/v1/devices`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': forwardedFor } });

  it('when one forwarded client fails authentication past the limit, then it is refused and another client behind the same balancer is not', async () => {
    // Throttled at the limit: its wrong keys are answered 429.
    for (let i = 0; i < LIMIT - 1; i++) expect((await devices('203.0.113.10')).status).to.equal(401);
    expect((await devices('203.0.113.10')).status, 'the guesser').to.equal(429);
    expect((await devices('203.0.113.11', fx.tenant.key)).status, 'its neighbour behind the balancer').to.equal(200);
  });

  /** Opens a raw MQTT/TCP connection through "the balancer": a PROXY v1 line, then a CONNECT. */
  function mqttThroughProxy(header: string | undefined): Promise<{ socket: Socket; first: Promise<Buffer | 'closed'> }> {
    return new Promise((resolve, reject) => {
      const socket = connect(fx.gateway.mqttPort, '127.0.0.1', () => {
        // CONNECT, MQTT 3.1.1, clean session, keepalive 60, client id "probe", no credentials: refused 5, after the header was read.
        const connectPacket = Buffer.from([0x10, 0x11, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3c, 0x00, 0x05, 0x70, 0x72, 0x6f, 0x62, 0x65]);
        socket.write(header ? Buffer.concat([Buffer.from(header), connectPacket]) : connectPacket);
        const first = new Promise<Buffer | 'closed'>((done) => {
          socket.once('data', done);
          socket.once('close', () => done('closed'));
        });
        resolve({ socket, first });
      });
      socket.on('error', reject);
    });
  }

  it('when MQTT over TCP comes from the balancer with a PROXY header, then the broker answers the MQTT behind it, and counts failures against the named client, not the balancer', async () => {
    for (let i = 0; i <= LIMIT; i++) {
      const { socket, first } = await mqttThroughProxy('PROXY TCP4 198.51.100.20 10.0.0.2 51000 1883\r\n');
      const answer = await first;
      socket.destroy();
      expect(answer, 'a CONNACK').to.be.instanceOf(Buffer);
      expect((answer as Buffer)[0]).to.equal(0x20);
      expect((answer as Buffer)[3], 'refused: not authorized').to.equal(5);
    }
    expect(fx.gateway.services.authThrottle.throttledFor('198.51.100.20', 'device'), 'the named client').to.be.above(0);
    expect(fx.gateway.services.authThrottle.throttledFor('127.0.0.1', 'device'), 'the balancer itself').to.equal(0);
  });

  it('when a trusted balancer\'s connection does not start with a PROXY header, then it is closed and counted', async () => {
    const before = fx.gateway.services.metrics.value('mqtt_connections_refused_total', { reason: 'bad_proxy_header' }) ?? 0;
    const { first } = await mqttThroughProxy(undefined);
    expect(await first).to.equal('closed');
    expect(fx.gateway.services.metrics.value('mqtt_connections_refused_total', { reason: 'bad_proxy_header' })).to.equal(before + 1);
  });

  it('when a trusted balancer\'s connection is reset in the middle of its PROXY header, then it is counted and the broker goes on', async () => {
    const before = fx.gateway.services.metrics.value('mqtt_connections_refused_total', { reason: 'bad_proxy_header' }) ?? 0;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(fx.gateway.mqttPort, '127.0.0.1', () => {
        socket.write('PROXY TCP4 198.51.100.30', () => {
          socket.resetAndDestroy();
          resolve();
        });
      });
      socket.on('error', reject);
    });
    // The reset reaches the gateway a moment later.
    const refused = () => fx.gateway.services.metrics.value('mqtt_connections_refused_total', { reason: 'bad_proxy_header' }) ?? 0;
    await eventually('the cut header counted', () => refused() !== before);
    expect(refused()).to.equal(before + 1);
    const { socket, first } = await mqttThroughProxy('PROXY TCP4 198.51.100.31 10.0.0.2 51000 1883\r\n');
    expect(await first, 'a CONNACK').to.be.instanceOf(Buffer);
    socket.destroy();
  });
});
