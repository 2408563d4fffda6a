// Connections that never say who they are (no HTTP request, no MQTT CONNECT, no SMPP bind, no
// SMTP login) wait in their listener's waiting room, a quarter of its places. A flood of them,
// from several addresses and on every listener at once, pushes out only its own connections:
// the API, a phone, an ESME and a mail client keep working, and those that already identified
// are never pushed out. The listeners' caps are small here (as CONNECTION_BUDGET shares them out
// on a busy machine) so that a few hundred sockets stand for tens of thousands.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { smtpOn } from '../mail/support.ts';
import { eventually } from '../support/eventually.ts';
import { listDevices } from '../support/raw-http.ts';
import { REFUSED_METRIC } from '../../broker/refusal-log.ts';
import { listenerShares, waitingPlaces } from '../../src/common/file-descriptors.ts';
import { loadConfig } from '../../src/config.ts';
import { WaitingRoom } from '../../src/common/waiting-room.ts';

const HTTP_MAX = 64;
const MQTT_MAX = 128;
const SMPP_MAX = 16;
const SMTP_MAX = 16;
/** The flooding addresses: the test's machine routes all of 127/8 to itself. */
const FLOODERS = Array.from({ length: 8 }, (_, i) => `127.0.5.${i + 1}`);

/** A raw TCP connection from `from` that sends nothing; resolves once connected. */
function silentConnection(port: number, from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from }, () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

describe('hostile clients: connections that never identify wait in a room of their own', function () {
  this.timeout(60_000);
  const fx = useGateway({
    config: {
      httpLimits: { headersTimeoutMs: 30_000, bodyTimeoutMs: 10_000, maxConnectionsPerAddress: 1_000, maxConnections: HTTP_MAX },
      mqtt: { maxPacketBytes: 72 * 1024, connectTimeoutMs: 30_000, maxConnectionsPerAddress: 1_000, maxConnections: MQTT_MAX },
      smpp: { ...SMPP_ON, bindTimeoutMs: 30_000, maxConnections: SMPP_MAX },
      smtp: smtpOn({ maxClients: SMTP_MAX, idleTimeoutMs: 30_000 }),
    },
  });
  const sockets: Socket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.destroy()));

  /** `perAddress` silent connections to `port` from each flooding address. */
  async function flood(port: number, perAddress: number): Promise<Socket[]> {
    const opened: Socket[] = [];
    for (let round = 0; round < perAddress; round++) {
      for (const from of FLOODERS) {
        // A connection closed at once (its listener full) may be refused before connect completes.
        const socket = await silentConnection(port, from).catch(() => undefined);
        if (socket) opened.push(socket);
      }
    }
    sockets.push(...opened);
    return opened;
  }

  const stillOpen = (opened: Socket[]) => opened.filter((socket) => !socket.destroyed && !socket.readableEnded).length;

  it('when every listener is flooded past its cap by silent connections from eight addresses, then the API, a phone, an ESME and a mail login still work, and the floods keep to their rooms', async () => {
    // Identified before the flood: a phone connected, an ESME bound. Neither may be pushed out.
    const earlyPhone = await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const earlyEsme = await bindEsme(fx.gateway, credential);

    const { metrics } = fx.gateway.services;
    const httpFlood = await flood(fx.gateway.httpPort, 12); // 96 > HTTP_MAX
    const mqttFlood = await flood(fx.gateway.mqttPort, 20); // 160 > MQTT_MAX
    const smppFlood = await flood(fx.gateway.smppPort, 4); // 32 > SMPP_MAX
    const smtpFlood = await flood(fx.gateway.smtpPort, 4); // 32 > SMTP_MAX

    // Each listener's silent connections are pushed out down to its room (the gateway closes the
    // oldest as newcomers arrive; this side sees the closes a moment later).
    await eventually('HTTP flood held to its room', () => stillOpen(httpFlood) <= waitingPlaces(HTTP_MAX));
    await eventually('MQTT flood held to its room', () => stillOpen(mqttFlood) <= waitingPlaces(MQTT_MAX));
    await eventually('SMPP flood held to its room', () => stillOpen(smppFlood) <= waitingPlaces(SMPP_MAX));
    await eventually('SMTP flood held to its room', () => stillOpen(smtpFlood) <= waitingPlaces(SMTP_MAX));
    // Balanced across its addresses, a flood finds each newcomer from an address already holding
    // the most: refused, or pushing out an older one of its own kind; never one that identified.
    const turnedAway = (metric: string, pushedOut: string) => metrics.value(metric, { reason: 'waiting_room_full' }) + metrics.value(metric, { reason: pushedOut });
    expect(turnedAway('http_connections_refused_total', 'pushed_out_before_request'), 'HTTP').to.be.above(0);
    expect(turnedAway(REFUSED_METRIC, 'pushed_out_before_connect'), 'MQTT').to.be.above(0);
    expect(turnedAway('smpp_connections_refused_total', 'pushed_out_unbound'), 'SMPP').to.be.above(0);
    expect(turnedAway('smtp_connections_refused_total', 'pushed_out_before_login'), 'SMTP').to.be.above(0);

    // While the floods hold their rooms full, each on its first attempt: the API answers another
    // client...
    expect((await listDevices(fx.gateway, fx.tenant.key)).status, 'the API').to.equal(200);
    // ...a phone connects...
    const { device, token } = await fx.registerDevice();
    await fx.clients.device(device.id, token);
    // ...and sends an SMS...
    const phone = await fx.connectDevice();
    const sent = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'through the flood', device_id: phone.id });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    await eventually('the SMS sent through the new phone', async () => ['sent', 'delivered'].includes((await fx.tenant.api.get(`/sms/${sent.body.id}`)).body.status), 15_000);
    // ...an ESME binds...
    const esme = await bindEsme(fx.gateway, credential);
    // ...and a mail client logs in.
    const mail = new SMTPConnection({ host: '127.0.0.1', port: fx.gateway.smtpPort, secure: false, ignoreTLS: true });
    try {
      await new Promise<void>((resolve, reject) => {
        mail.once('error', reject);
        mail.connect(() => mail.login({ user: 'anyone', pass: fx.tenant.key }, (error?: Error | null) => (error ? reject(error) : resolve())));
      });
    } finally {
      mail.close();
    }

    expect(earlyPhone.connected, 'the phone connected before the flood').to.equal(true);
    expect(earlyEsme.session.socket.destroyed, 'the ESME bound before the flood').to.equal(false);
    esme.session.close();
    earlyEsme.session.close();
  });

  it('when a flood comes from one address only, then a newcomer from it is refused rather than pushing out its own, and another address still gets in', async () => {
    const room = waitingPlaces(HTTP_MAX);
    const held: Socket[] = [];
    for (let i = 0; i < room; i++) held.push(await silentConnection(fx.gateway.httpPort, '127.0.6.1'));
    sockets.push(...held);
    const before = fx.gateway.services.metrics.value('http_connections_refused_total', { reason: 'waiting_room_full' });
    const extra = await silentConnection(fx.gateway.httpPort, '127.0.6.1').catch(() => undefined);
    if (extra) sockets.push(extra);
    await eventually('the newcomer from the flooding address refused', () => fx.gateway.services.metrics.value('http_connections_refused_total', { reason: 'waiting_room_full' }) > before);
    expect(stillOpen(held), 'its earlier connections are kept').to.equal(room);
    expect((await listDevices(fx.gateway, fx.tenant.key)).status, 'another address').to.equal(200);
  });
});

describe('the connection budget (CONNECTION_BUDGET)', () => {
  it('is shared out: half for MQTT, a quarter for HTTP, a sixteenth each for SMPP and SMTP, an eighth left for outbound connections', () => {
    expect(listenerShares(16_000)).to.deep.equal({ mqtt: 8_000, http: 4_000, smpp: 1_000, smtp: 1_000 });
    expect(listenerShares(100), 'a tiny budget still serves some').to.deep.equal({ mqtt: 64, http: 64, smpp: 16, smtp: 16 });
    expect(waitingPlaces(4_000), 'a quarter of a listener waits').to.equal(1_000);
    expect(waitingPlaces(10), 'at least a few').to.equal(8);
  });

  it('is read from CONNECTION_BUDGET, and SMPP_BIND_TIMEOUT and SMPP_MAX_CONNECTIONS with it; bad values are refused by name', () => {
    const config = loadConfig({ CONNECTION_BUDGET: '5000', SMPP_BIND_TIMEOUT: '7', SMPP_MAX_CONNECTIONS: '40' });
    expect(config.connectionBudget).to.equal(5_000);
    expect(config.smpp.bindTimeoutMs).to.equal(7_000);
    expect(config.smpp.maxConnections).to.equal(40);
    expect(loadConfig({}).smpp.bindTimeoutMs, 'an ESME binds within seconds by default').to.equal(5_000);
    expect(() => loadConfig({ CONNECTION_BUDGET: '10' })).to.throw(/CONNECTION_BUDGET/);
    expect(() => loadConfig({ SMPP_BIND_TIMEOUT: 'soon' })).to.throw(/SMPP_BIND_TIMEOUT/);
  });
});

describe('the waiting room', () => {
  it('when full, pushes out the oldest connection of the address holding most, refuses a newcomer from that address, and frees a place left', () => {
    const room = new WaitingRoom(4);
    const closed: string[] = [];
    const places = ['a1', 'a2', 'a3', 'b1'].map((name) => room.enter(name[0]!, () => closed.push(name)));
    expect(places.every((arrival) => 'place' in arrival && !arrival.displaced)).to.equal(true);

    expect(room.enter('a', () => closed.push('a4')), 'a newcomer from the address holding most').to.deep.equal({ refused: true });
    const fromC = room.enter('c', () => closed.push('c1'));
    expect(fromC).to.include({ displaced: true });
    expect(closed, 'the oldest of the address holding most').to.deep.equal(['a1']);
    expect([room.size, room.heldBy('a'), room.heldBy('c')]).to.deep.equal([4, 2, 1]);

    // Left on identifying (or closing): idempotent, and the place is free for anyone.
    const b1 = places[3] as { place: { leave(): void } };
    b1.place.leave();
    b1.place.leave();
    expect(room.size).to.equal(3);
    expect(room.enter('d', () => closed.push('d1'))).to.include({ displaced: false });
    expect(closed).to.deep.equal(['a1']);
  });
});
