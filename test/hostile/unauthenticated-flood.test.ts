// Connections nobody has authenticated yet (SMPP, HTTP and MQTT here) hold a place in their listener's share of the
// process's connection budget (CONNECTION_BUDGET, UNAUTHENTICATED_CONNECTIONS): past the share a
// new one is closed at once, while the connections that authenticated (an API client on
// keep-alive, a phone on MQTT) keep being served and the other listeners keep their own shares.
// Without it, SMPP connections that never bind and HTTP connections that never send their
// headers held the process's descriptors until their timeouts, and every listener went down.
// The budget is small here, so that a few dozen sockets fill it.
import { expect } from 'chai';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { useGateway } from '../support/use-gateway.ts';
import { SMPP_ON } from '../support/smpp-client.ts';
import { eventually } from '../support/eventually.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';

const SHARE = 8;
const FLOOD = 20;

describe('hostile clients: a flood of connections that never authenticate', function () {
  this.timeout(20_000);
  const fx = useGateway({
    config: {
      smpp: SMPP_ON,
      connectionBudget: { total: 256, unauthenticatedPerListener: SHARE },
      // The flood's connections stay for the whole test unless the budget closes them.
      httpLimits: { headersTimeoutMs: 60_000, bodyTimeoutMs: 10_000, maxConnectionsPerAddress: 256, maxConnections: undefined },
    },
  });
  const sockets: Socket[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let phone: SimulatedDevice | undefined;
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    agent.destroy();
    await phone?.stop();
  });

  /** A raw TCP connection that sends nothing; counts itself in `closed` when the gateway closes it. */
  function openIdle(port: number, closed: { count: number }): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
      sockets.push(socket);
      socket.once('error', reject);
      socket.once('close', () => closed.count++);
    });
  }

  /** GET on the API over the one kept-alive connection of `agent`. */
  function apiGet(path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: fx.gateway.httpPort, path, agent, headers: { authorization: `Bearer ${fx.tenant.key}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('when SMPP connections never bind and HTTP connections never send headers, then those past each listener\'s share are closed at once, and an API client and a phone already in keep working', async () => {
    phone = await fx.connectDevice();
    expect(await apiGet('/api/ext/v1/devices'), 'the API client, before the flood').to.equal(200);

    const smppClosed = { count: 0 };
    const httpClosed = { count: 0 };
    const mqttClosed = { count: 0 };
    const mqttFlood: Socket[] = [];
    for (let i = 0; i < FLOOD; i++) {
      await openIdle(fx.gateway.smppPort!, smppClosed).catch(() => undefined);
      await openIdle(fx.gateway.httpPort, httpClosed).catch(() => undefined);
      mqttFlood.push(await openIdle(fx.gateway.mqttPort, mqttClosed));
    }
    await eventually('the SMPP connections past the share closed', () => smppClosed.count >= FLOOD - SHARE, 3_000);
    await eventually('the HTTP connections past the share closed', () => httpClosed.count >= FLOOD - SHARE, 3_000);
    await eventually('the MQTT connections past the share closed', () => mqttClosed.count >= FLOOD - SHARE, 3_000);
    expect(smppClosed.count, 'SMPP connections within the share stay until their bind timeout').to.equal(FLOOD - SHARE);
    expect(httpClosed.count, 'HTTP connections within the share stay until their header timeout').to.equal(FLOOD - SHARE);
    expect(mqttClosed.count, 'MQTT connections within the share stay until their CONNECT timeout').to.equal(FLOOD - SHARE);

    expect(await apiGet('/api/ext/v1/devices'), 'the API client, during the flood').to.equal(200);
    expect(await phone.receive('+15550000001', 'during the flood'), 'an SMS the phone forwards over MQTT').to.be.a('string');
    // A place freed (the flood's MQTT connections gone) is taken by a phone connecting now.
    for (const socket of mqttFlood) socket.destroy();
    await eventually('the MQTT flood gone', () => mqttClosed.count === FLOOD, 3_000);
    const another = await fx.connectDevice({ name: 'second phone' });
    expect(another.connected).to.equal(true);
    await another.stop();
    expect(fx.gateway.services.metrics.value('http_connections_refused_total', { reason: 'unauthenticated' })).to.equal(FLOOD - SHARE);
  });
});
