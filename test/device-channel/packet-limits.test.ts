// Unbounded MQTT packets before authentication: a connection that announces a packet over its
// limit is closed before the broker buffers it (a small limit before CONNACK, MQTT_MAX_PACKET
// after), a connection that does not finish CONNECT in MQTT_CONNECT_TIMEOUT is closed, and one
// client address holds at most MQTT_MAX_CONNECTIONS_PER_ADDRESS connections, over TCP and
// WebSocket alike. Every refusal is counted by reason.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice } from '../support/tenant.ts';
import { mqttUrl, RawClients, topic } from '../support/mqtt.ts';
import { MAX_PACKET_BEFORE_AUTH_BYTES, PacketSizeGuard } from '../../broker/packet-guard.ts';
import { REFUSED_METRIC } from '../../broker/refusal-log.ts';
import { WEBSOCKET_MESSAGE_PACKETS } from '../../broker/device-channel.ts';

const MAX_PACKET = 72 * 1024;
const CONNECT_TIMEOUT_MS = 400;
const PER_ADDRESS = 4;

/** A fixed header: the packet type byte, then the remaining length (MQTT 2.2.3). */
function fixedHeader(typeByte: number, remainingLength: number): Buffer {
  const bytes = [typeByte];
  let length = remainingLength;
  do {
    let byte = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    bytes.push(byte);
  } while (length > 0);
  return Buffer.from(bytes);
}

/** The start of a CONNECT (MQTT 3.1.1, clean session) whose fixed header announces `remainingLength`. */
function connectAnnouncing(remainingLength: number): Buffer {
  const variableHeader = Buffer.from([0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3c]);
  return Buffer.concat([fixedHeader(0x10, remainingLength), variableHeader]);
}

/** Opens a raw TCP connection to the broker; resolves once connected. */
function rawSocket(gateway: Gateway): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(gateway.mqttPort, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves when the gateway has closed the socket; fails if it stays open past timeoutMs. */
function closedBy(socket: Socket, timeoutMs: number): Promise<void> {
  socket.on('error', () => undefined);
  if (socket.destroyed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the socket was still open after ${timeoutMs} ms`)), timeoutMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    // The gateway's FIN shows as 'end'; answer it so the socket closes.
    socket.once('end', () => socket.end());
  });
}

describe('device channel: packet sizes, CONNECT timeout and connections per address', () => {
  let gateway: Gateway;
  let clients: RawClients;
  const sockets: Socket[] = [];
  const refused = (reason: string) => gateway.services.metrics.value(REFUSED_METRIC, { reason });

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway({ mqtt: { maxPacketBytes: MAX_PACKET, connectTimeoutMs: CONNECT_TIMEOUT_MS, maxConnectionsPerAddress: PER_ADDRESS, maxConnections: undefined } });
    clients = new RawClients(() => mqttUrl(gateway));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await clients.endAll();
  });
  after(async () => gateway.stop());

  const opened = async () => {
    const socket = await rawSocket(gateway);
    sockets.push(socket);
    return socket;
  };

  describe('when unauthenticated connections announce a 250 MiB CONNECT', () => {
    it('then each is closed at once, counted, and the broker still takes devices', async () => {
      const before = refused('packet_too_large');
      const floods = await Promise.all([opened(), opened(), opened()]);
      for (const socket of floods) socket.write(connectAnnouncing(250 * 1024 * 1024));
      await Promise.all(floods.map((socket) => closedBy(socket, 2_000)));
      expect(refused('packet_too_large') - before).to.equal(3);

      const tenant = await createTenant(gateway);
      const { device, token } = await registerDevice(gateway, tenant);
      const phone = await clients.device(device.id, token);
      expect(phone.closed).to.equal(false);
    });
  });

  describe('when a CONNECT is just over the limit before authentication', () => {
    it('then it is closed, while a CONNECT within it is answered', async () => {
      const before = refused('packet_too_large');
      const big = await opened();
      big.write(connectAnnouncing(MAX_PACKET_BEFORE_AUTH_BYTES));
      await closedBy(big, 2_000);
      expect(refused('packet_too_large') - before).to.equal(1);
      // A real CONNECT with a long (wrong) password, still well within the limit, gets CONNACK.
      const error = await clients.refused({ clientId: 'not-a-device', username: 'not-a-device', password: 'x'.repeat(1_000) });
      expect(error.code).to.equal(5);
    });
  });

  describe('when a fixed header carries a remaining length of five bytes', () => {
    it('then the connection is closed as malformed', async () => {
      const before = refused('malformed_length');
      const socket = await opened();
      socket.write(Buffer.from([0x10, 0x81, 0x80, 0x80, 0x80, 0x01]));
      await closedBy(socket, 2_000);
      expect(refused('malformed_length') - before).to.equal(1);
    });
  });

  describe('when an authenticated device publishes', () => {
    it('then a payload over 64 KiB but within MQTT_MAX_PACKET is dropped with the connection kept, and a packet over MQTT_MAX_PACKET closes it', async () => {
      const tenant = await createTenant(gateway);
      const { device, token } = await registerDevice(gateway, tenant);
      const phone = await clients.device(device.id, token);
      const quarantined = gateway.services.metrics.value('device_messages_rejected_total', { reason: 'payload_too_large' });
      await phone.publish(topic(device.id, 'heartbeat'), Buffer.alloc(66 * 1024, 0x20), { qos: 1 });
      await phone.client.unsubscribeAsync(topic(device.id, 'tasks'));
      expect(phone.closed, 'a 66 KiB message keeps the connection').to.equal(false);
      expect(gateway.services.metrics.value('device_messages_rejected_total', { reason: 'payload_too_large' }) - quarantined).to.equal(1);

      const before = refused('packet_too_large');
      phone.client.publish(topic(device.id, 'heartbeat'), Buffer.alloc(MAX_PACKET, 0x20), { qos: 0 });
      await phone.whenClosed(2_000);
      expect(refused('packet_too_large') - before).to.equal(1);
    });
  });

  describe('when a connection does not finish its CONNECT', () => {
    it('then one that sends nothing and one that sends half a CONNECT are both closed after MQTT_CONNECT_TIMEOUT', async () => {
      const before = refused('connect_timeout');
      const silent = await opened();
      const half = await opened();
      half.write(connectAnnouncing(40));
      const started = Date.now();
      await Promise.all([closedBy(silent, CONNECT_TIMEOUT_MS + 2_000), closedBy(half, CONNECT_TIMEOUT_MS + 2_000)]);
      expect(Date.now() - started).to.be.at.least(CONNECT_TIMEOUT_MS - 50);
      expect(refused('connect_timeout') - before).to.equal(2);
    });
  });

  describe('when one address opens more connections than MQTT_MAX_CONNECTIONS_PER_ADDRESS', () => {
    it('then the ones past the cap are closed at once over TCP and WebSocket, and a place freed is taken again', async () => {
      const before = refused('too_many_connections');
      const held = await Promise.all(Array.from({ length: PER_ADDRESS }, () => opened()));
      const extra = await opened();
      await closedBy(extra, 1_000);
      expect(refused('too_many_connections') - before).to.equal(1);

      const ws = new WebSocket(`ws://127.0.0.1:${gateway.httpPort}/mqtt`, 'mqtt');
      ws.on('error', () => undefined);
      await new Promise<void>((resolve) => ws.once('close', () => resolve()));
      expect(refused('too_many_connections') - before).to.equal(2);
      for (const socket of held) expect(socket.destroyed, 'the first ones stay open').to.equal(false);

      // The freed place: a device connects. The gateway learns of the close a moment after this
      // side does, so a connection refused in between is tried again (each try is a round trip).
      held[0]!.destroy();
      const tenant = await createTenant(gateway);
      const { device, token } = await registerDevice(gateway, tenant);
      let phone: Awaited<ReturnType<RawClients['device']>> | undefined;
      for (let attempt = 0; attempt < 20 && !phone; attempt++) phone = await clients.device(device.id, token).catch(() => undefined);
      expect(phone, 'a device took the freed place').to.not.equal(undefined);
      expect(refused('too_many_connections') - before, 'refused meanwhile').to.be.below(20);
    });
  });

  describe('when a WebSocket client sends a message larger than a few times MQTT_MAX_PACKET', () => {
    it('then the WebSocket is closed with 1009 and counted', async () => {
      const before = refused('packet_too_large');
      const ws = new WebSocket(`ws://127.0.0.1:${gateway.httpPort}/mqtt`, 'mqtt');
      ws.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('close', () => reject(new Error('closed before open')));
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      // Refused by the WebSocket layer from the frame's length, before the packet guard reads it.
      ws.send(Buffer.alloc(WEBSOCKET_MESSAGE_PACKETS * MAX_PACKET + 1), { binary: true });
      expect(await closed).to.equal(1009);
      expect(refused('packet_too_large') - before).to.equal(1);
    });
  });

  describe('when an unauthenticated WebSocket announces a CONNECT over the limit before authentication', () => {
    it('then it is closed by the header check, before any of the body arrives', async () => {
      const before = refused('packet_too_large');
      const ws = new WebSocket(`ws://127.0.0.1:${gateway.httpPort}/mqtt`, 'mqtt');
      ws.on('error', () => undefined);
      await new Promise<void>((resolve) => ws.once('open', () => resolve()));
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.send(connectAnnouncing(250 * 1024 * 1024), { binary: true });
      await closed;
      expect(refused('packet_too_large') - before).to.equal(1);
    });
  });
});

describe('PacketSizeGuard', () => {
  /** A whole PUBLISH of `total` bytes, fixed header included (its length field takes 1 to 3 bytes here). */
  const packetOf = (total: number) => {
    const lengthBytes = total - 2 < 128 ? 1 : total - 3 < 16_384 ? 2 : 3;
    const remaining = total - 1 - lengthBytes;
    return Buffer.concat([fixedHeader(0x30, remaining), Buffer.alloc(remaining)]);
  };

  it('takes a packet of exactly the limit and refuses one byte more, before and after authentication', () => {
    const guard = new PacketSizeGuard(MAX_PACKET);
    expect(guard.inspect(packetOf(MAX_PACKET_BEFORE_AUTH_BYTES))).to.equal(undefined);
    expect(new PacketSizeGuard(MAX_PACKET).inspect(packetOf(MAX_PACKET_BEFORE_AUTH_BYTES + 1))).to.equal('packet_too_large');
    guard.authenticated();
    expect(guard.inspect(packetOf(MAX_PACKET))).to.equal(undefined);
    expect(guard.inspect(packetOf(MAX_PACKET + 1))).to.equal('packet_too_large');
  });

  it('follows packets split anywhere across reads and several packets in one read', () => {
    const guard = new PacketSizeGuard(MAX_PACKET);
    guard.authenticated();
    const stream = Buffer.concat([packetOf(100), packetOf(MAX_PACKET), Buffer.from([0xc0, 0x00]), packetOf(5_000)]);
    for (let i = 0; i < stream.length; i += 7) expect(guard.inspect(stream.subarray(i, i + 7))).to.equal(undefined);
    expect(guard.inspect(Buffer.concat([packetOf(300), packetOf(400)]))).to.equal(undefined);
    expect(guard.inspect(fixedHeader(0x30, MAX_PACKET))).to.equal('packet_too_large');
  });
});
