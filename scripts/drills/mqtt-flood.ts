// Drill: unauthenticated MQTT connections announcing huge packets.
//
// Repeats an attack measured from outside: three raw TCP connections each announce a 250 MiB
// CONNECT and then stream its body as fast as they can, plus one WebSocket doing the same at
// /mqtt. Before the fix the gateway buffered every byte (158 -> 583 MB in 3 s) and never closed
// the sockets. It passes when every connection is closed by the gateway within a second of its
// header, the gateway's memory grows by less than 64 MB, and a device still connects afterwards.
//
// The gateway runs in this process (embedded database in memory, 127.0.0.1, ports chosen by the
// system); the attackers reuse one 64 KiB buffer, so the process's RSS is the gateway's.
//
//   npx tsx scripts/drills/mqtt-flood.ts
//   MQTT_FLOOD_SECONDS=1 npx tsx scripts/drills/mqtt-flood.ts   (a quick run)
import { connect, type Socket } from 'node:net';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';

const NAME = 'mqtt-flood';
/** How long each attacker keeps streaming when the gateway does not close it (3 s, as in the measured attack). */
const FLOOD_SECONDS = readSeconds('MQTT_FLOOD_SECONDS', 3);
const ATTACKERS = 3;
const ANNOUNCED_BYTES = 250 * 1024 * 1024;
const CLOSED_WITHIN_MS = 1_000;
const MAX_RSS_GROWTH_MB = 64;

interface Attack {
  what: string;
  /** Bytes written before the gateway closed the connection (or the flood ended). */
  sent: number;
  /** Milliseconds from the header to the close; undefined when the gateway never closed it. */
  closedAfterMs: number | undefined;
}

function readSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 60) {
    console.log(`DRILL ${NAME}: FAIL ${name} must be a number of seconds from 0 to 60, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

/** A CONNECT fixed header announcing `remaining` bytes, and the start of its variable header. */
function announcement(remaining: number): Buffer {
  const header = [0x10];
  let length = remaining;
  do {
    let byte = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    header.push(byte);
  } while (length > 0);
  return Buffer.concat([Buffer.from(header), Buffer.from([0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3c])]);
}

const junk = Buffer.alloc(64 * 1024, 0x41);
const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

/** Streams the announced CONNECT's body into a TCP socket until the gateway closes it or time runs out. */
function floodTcp(port: number, index: number): Promise<Attack> {
  return new Promise((resolve) => {
    const attack: Attack = { what: `tcp #${index + 1}`, sent: 0, closedAfterMs: undefined };
    const socket: Socket = connect(port, '127.0.0.1');
    let started = 0;
    const stop = setTimeout(() => socket.destroy(), FLOOD_SECONDS * 1000);
    const pump = () => {
      while (!socket.destroyed && socket.writable) {
        attack.sent += junk.length;
        if (!socket.write(junk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      started = Date.now();
      socket.write(announcement(ANNOUNCED_BYTES));
      pump();
    });
    socket.on('error', () => undefined);
    // 'end' or a reset from the gateway: it closed the connection.
    const closedByGateway = () => {
      if (attack.closedAfterMs === undefined && started) attack.closedAfterMs = Date.now() - started;
      socket.destroy();
    };
    socket.on('end', closedByGateway);
    socket.on('error', closedByGateway);
    socket.on('close', () => {
      clearTimeout(stop);
      resolve(attack);
    });
  });
}

/** The same over MQTT-over-WebSocket, one binary message per chunk. */
function floodWebSocket(httpPort: number): Promise<Attack> {
  return new Promise((resolve) => {
    const attack: Attack = { what: 'websocket', sent: 0, closedAfterMs: undefined };
    const ws = new WebSocket(`ws://127.0.0.1:${httpPort}/mqtt`, 'mqtt');
    let started = 0;
    let stopped = false;
    const stop = setTimeout(() => {
      stopped = true;
      ws.terminate();
    }, FLOOD_SECONDS * 1000);
    ws.on('error', () => undefined);
    ws.on('open', () => {
      started = Date.now();
      ws.send(announcement(ANNOUNCED_BYTES));
      const pump = () => {
        while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount < 1024 * 1024) {
          attack.sent += junk.length;
          ws.send(junk);
        }
        if (ws.readyState === WebSocket.OPEN) setImmediate(pump);
      };
      pump();
    });
    ws.on('close', () => {
      clearTimeout(stop);
      if (!stopped && started) attack.closedAfterMs = Date.now() - started;
      resolve(attack);
    });
  });
}

async function main(): Promise<void> {
  const config = { ...loadConfig({}), port: 0, mqttPort: 0, host: '127.0.0.1', databaseUrl: undefined, dataDir: ':memory:', logLevel: 'silent' as const };
  const gateway = await Gateway.start(config, createLogger(config.logLevel));
  let failure: string | undefined;
  try {
    const account = await gateway.services.accounts.create('flood-drill');
    const { device, token } = await gateway.services.devices.register(account.id, 'drill-phone');
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 50);
    const attacks = await Promise.all([...Array.from({ length: ATTACKERS }, (_, i) => floodTcp(gateway.mqttPort, i)), floodWebSocket(gateway.httpPort)]);
    clearInterval(sampler);
    const after = rssMb();
    peak = Math.max(peak, after);

    const phone = await mqtt
      .connectAsync(`mqtt://127.0.0.1:${gateway.mqttPort}`, { clientId: device.id, username: device.id, password: token, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5_000 })
      .then((client) => client.endAsync().then(() => true))
      .catch(() => false);

    console.log(`flood: ${ATTACKERS} TCP + 1 WebSocket connections, each announcing a ${ANNOUNCED_BYTES / 1024 / 1024} MiB CONNECT, streaming for at most ${FLOOD_SECONDS} s`);
    for (const attack of attacks) {
      const closed = attack.closedAfterMs === undefined ? 'NOT closed by the gateway' : `closed by the gateway after ${attack.closedAfterMs} ms`;
      console.log(`  ${attack.what}: ${(attack.sent / 1024).toFixed(0)} KiB written, ${closed}`);
    }
    console.log(`gateway RSS: before ${before} MB, peak ${peak} MB, after ${after} MB (growth ${peak - before} MB)`);
    console.log(`refused: ${JSON.stringify(refusals(gateway))}`);
    console.log(`a device connects afterwards: ${phone ? 'yes' : 'no'}`);

    const open = attacks.filter((attack) => attack.closedAfterMs === undefined || attack.closedAfterMs > CLOSED_WITHIN_MS);
    if (open.length > 0) failure = `${open.map((attack) => attack.what).join(', ')} not closed within ${CLOSED_WITHIN_MS} ms`;
    else if (peak - before > MAX_RSS_GROWTH_MB) failure = `RSS grew by ${peak - before} MB (limit ${MAX_RSS_GROWTH_MB} MB)`;
    else if (!phone) failure = 'a device could not connect after the flood';
    if (!failure) {
      const slowest = Math.max(...attacks.map((attack) => attack.closedAfterMs ?? Infinity));
      console.log(`DRILL ${NAME}: PASS ${attacks.length} flooding connections closed within ${slowest} ms, RSS +${peak - before} MB, devices still connect`);
    }
  } finally {
    await gateway.stop();
  }
  if (failure) {
    console.log(`DRILL ${NAME}: FAIL ${failure}`);
    process.exit(1);
  }
  process.exit(0);
}

function refusals(gateway: Gateway): Record<string, number> {
  const metrics = gateway.services.metrics;
  const reasons = ['packet_too_large', 'malformed_length', 'connect_timeout', 'too_many_connections'];
  return Object.fromEntries(reasons.map((reason) => [reason, metrics.value('mqtt_connections_refused_total', { reason })]));
}

// Bounded whatever happens: the drill never outlives its flood by more than a minute.
setTimeout(() => {
  console.log(`DRILL ${NAME}: FAIL did not finish within ${FLOOD_SECONDS + 60} s`);
  process.exit(1);
}, (FLOOD_SECONDS + 60) * 1000).unref();

main().catch((error: unknown) => {
  console.log(`DRILL ${NAME}: FAIL ${(error as Error).message}`);
  process.exit(1);
});
