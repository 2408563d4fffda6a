// MQTT_MAX_CONNECTIONS: the broker holds at most so many connections in all, whatever addresses
// they come from, over TCP and WebSocket alike, so that many clients together cannot use up the
// process's file descriptors. Past it a connection is closed at once, counted, and the burst is
// logged once; a place freed is taken again. By default the broker takes half of the process's
// connection budget.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice } from '../support/tenant.ts';
import { mqttUrl, RawClients } from '../support/mqtt.ts';
import { REFUSED_METRIC } from '../../broker/refusal-log.ts';
import { defaultMaxMqttConnections } from '../../broker/connection-limits.ts';
import { defaultMaxConnections, FD_RESERVE } from '../../src/http/server-limits.ts';
import { GatewayLog } from '../support/gateway-log.ts';

const MAX = 4;
const CAPACITY_LOG = 'mqtt connections refused: the broker holds all it may';

/** A raw TCP connection to the broker from the loopback address `from`; resolves once connected. */
function rawSocket(gateway: Gateway, from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: gateway.mqttPort, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether the gateway closes the socket within `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  socket.on('error', () => undefined);
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    // The gateway's FIN shows as 'end'; answer it so the socket closes.
    socket.once('end', () => socket.end());
  });
}

describe('device channel: connections in all (MQTT_MAX_CONNECTIONS)', () => {
  let gateway: Gateway;
  let clients: RawClients;
  const logs = new GatewayLog();
  const sockets: Socket[] = [];
  const refused = (reason: string) => gateway.services.metrics.value(REFUSED_METRIC, { reason });

  before(async function () {
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway(
      // A long CONNECT timeout: the connections held here stay open for the whole test.
      { logLevel: 'warn', mqtt: { maxPacketBytes: 72 * 1024, connectTimeoutMs: 30_000, maxConnectionsPerAddress: 100, maxConnections: MAX } },
      undefined,
      logs,
    );
    clients = new RawClients(() => mqttUrl(gateway));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await clients.endAll();
  });
  after(async () => gateway.stop());

  it(`when ${MAX} connections from different addresses are open, then the next is closed at once over TCP and WebSocket, counted, logged once, and a place freed is taken again`, async () => {
    const before = refused('max_connections');
    for (let i = 1; i <= MAX; i++) sockets.push(await rawSocket(gateway, `127.0.3.${i}`));
    const extras = [await rawSocket(gateway, '127.0.4.1'), await rawSocket(gateway, '127.0.4.2')];
    sockets.push(...extras);
    for (const extra of extras) expect(await closedWithin(extra, 1_000), 'a connection past the cap').to.equal(true);

    const ws = new WebSocket(`ws://127.0.0.1:${gateway.httpPort}/mqtt`, 'mqtt');
    ws.on('error', () => undefined);
    await new Promise<void>((resolve) => ws.once('close', () => resolve()));
    expect(refused('max_connections') - before, 'two over TCP, one over WebSocket').to.equal(3);
    expect(logs.count(CAPACITY_LOG), 'one line for the burst').to.equal(1);
    for (const socket of sockets.slice(0, MAX)) expect(socket.destroyed, 'the first ones stay open').to.equal(false);
    expect(refused('too_many_connections'), 'no address was over its own cap').to.equal(0);

    // The freed place: a device connects. The gateway learns of the close a moment after this
    // side does, so a connection refused in between is tried again (each try is a round trip).
    sockets[0]!.destroy();
    const tenant = await createTenant(gateway);
    const { device, token } = await registerDevice(gateway, tenant);
    let phone: Awaited<ReturnType<RawClients['device']>> | undefined;
    for (let attempt = 0; attempt < 20 && !phone; attempt++) phone = await clients.device(device.id, token).catch(() => undefined);
    expect(phone, 'a device took the freed place').to.not.equal(undefined);
  });

  it('by default, the broker may hold half of the file descriptors left after the reserve, and HTTP a quarter', () => {
    expect(defaultMaxMqttConnections(20_000)).to.equal((20_000 - FD_RESERVE) / 2);
    expect(defaultMaxMqttConnections(20_000) + defaultMaxConnections(20_000), 'three quarters together').to.equal(((20_000 - FD_RESERVE) * 3) / 4);
    expect(defaultMaxMqttConnections(300), 'a tiny limit still serves some').to.equal(64);
  });
});
