// Dispatch latency beside a connected fleet: does holding many idle phones slow the SMS of the
// phones that send? One gateway (its own process, a fresh PostgreSQL database), one account with
// LATENCY_DEVICES phones (default 4, pacing lifted) answering at once, and SMS posted open-loop at
// FLEET_LATENCY_RATE a second (default 100) for FLEET_LATENCY_SECONDS (default 15), three times:
// alone; with FLEET_DEVICES idle phones of another account connected (default 10,000: connected,
// subscribed, presence and heartbeat as the app, from generator processes, fleet-generators.ts);
// alone again once they are gone. Printed per phase: POST -> task at the phone and POST -> 201,
// p50 / p99 / max, and the p99 against the mean of the two phases alone (target: within 20%);
// and what the phase cost (fleet-phase-load.ts): the gateway's event-loop delay, CPU and garbage
// collection, PostgreSQL's CPU and how busy the machine's cores were, so that a slower phase shows
// whether the gateway paused or the machine ran short.
// FLEET_SETTLE_S (default 10) passes after the fleet came and after it left, before measuring.
//
//   npx tsx scripts/bench/fleet-latency.ts        FLEET_DEVICES=2000 for a quick look
import { tmpdir } from 'node:os';
import { request } from 'undici';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { closeDatabase, openDatabase, type Database } from '../../src/storage/database.ts';
import { FleetGenerators, registerFleetDevices } from './fleet-generators.ts';
import { PhaseLoadMeter, type PhaseLoad } from './fleet-phase-load.ts';
import { paced } from './dispatch-latency.ts';
import { freshDatabase, liftDeviceLimits, positiveIntegerSetting, prepareTenant, printTable, spawnGateway, stats } from './support.ts';

const RATE = positiveIntegerSetting('FLEET_LATENCY_RATE', 100);
const SECONDS = positiveIntegerSetting('FLEET_LATENCY_SECONDS', 15);
const FLEET = positiveIntegerSetting('FLEET_DEVICES', 10_000);
const DEVICES = positiveIntegerSetting('LATENCY_DEVICES', 4);
/** How long the fleet may take to come online before the phase runs with what came. */
const CONNECT_LIMIT_MS = positiveIntegerSetting('FLEET_PHASE_LIMIT_S', 240) * 1000;
/** A pause after the fleet came and after it left, so that a phase measures a steady state, not the connects or the goodbyes. */
const SETTLE_MS = positiveIntegerSetting('FLEET_SETTLE_S', 10) * 1000;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
const log = (message: string) => process.stderr.write(`[fleet-latency ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

interface Phase {
  name: string;
  toTask: number[];
  accepted: number[];
  load?: PhaseLoad;
}

const database = await freshDatabase('fleet_latency');
const tenant = await prepareTenant(database.url, DEVICES);
// Every simulated phone connects from 127.0.0.1: the per-address cap meant for NAT, and the cap in
// all (half the open-file limit by default), are lifted.
const gateway = await spawnGateway(database.url, {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  MQTT_MAX_CONNECTIONS_PER_ADDRESS: String(FLEET + 1_000),
  MQTT_MAX_CONNECTIONS: String(FLEET + 1_000),
});
const brokerUrl = `mqtt://127.0.0.1:${gateway.mqttPort}`;
const phones = tenant.devices.map((device) => new SimulatedDevice({ brokerUrl, deviceId: device.id, token: device.token }));
let generators: FleetGenerators | undefined;
let db: Database | undefined;
const phases: Phase[] = [];
let online = 0;
const meter = new PhaseLoadMeter(`http://127.0.0.1:${gateway.port}`, gateway.child.pid!, new URL(database.url).pathname.slice(1));
try {
  await liftDeviceLimits(`http://127.0.0.1:${gateway.port}`, tenant.key, tenant.devices.map((device) => device.id));
  await Promise.all(phones.map((phone) => phone.connect()));
  const sentAt = new Map<string, number>();
  let current: Phase | undefined;
  for (const phone of phones) {
    phone.on('task', (task) => {
      const started = sentAt.get(task.message);
      if (started !== undefined && current) current.toTask.push(performance.now() - started);
    });
  }
  const api = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
  const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
  const measure = async (name: string): Promise<void> => {
    const phase: Phase = { name, toTask: [], accepted: [] };
    current = phase;
    log(`${name}: ${RATE * SECONDS} SMS at ${RATE}/s`);
    const phaseLoad = await meter.start();
    await paced(RATE * SECONDS, RATE, async (i) => {
      const message = `${name} ${i}`;
      const started = performance.now();
      sentAt.set(message, started);
      const response = await request(`${api}/sms`, { method: 'POST', headers, body: JSON.stringify({ phone: '+79161234567', message }) });
      await response.body.dump();
      if (response.statusCode === 201) phase.accepted.push(performance.now() - started);
    });
    // The last tasks are on their way: a moment for them before the phase ends.
    const deadline = Date.now() + 10_000;
    while (phase.toTask.length < phase.accepted.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    phase.load = await phaseLoad();
    phases.push(phase);
  };

  await measure('alone');

  db = await openDatabase({ databaseUrl: database.url, dataDir: tmpdir(), poolMax: 2 });
  const fleet = await registerFleetDevices(db, FLEET);
  generators = FleetGenerators.start(FLEET, 2);
  log(`connecting ${FLEET} idle phones from ${generators.processes} processes`);
  const connected = await generators.connect(brokerUrl, fleet.map(({ id, token }, i) => ({ id, token, name: `fleet-${i + 1}` })), {
    concurrency: 300,
    phaseLimitMs: CONNECT_LIMIT_MS,
    onProgress: (count) => log(`${count}/${FLEET} online`),
  });
  online = connected.online;
  log(`${online} online${connected.allOnlineMs === undefined ? '' : ` in ${(connected.allOnlineMs / 1000).toFixed(1)} s`}`);
  await settle();
  await measure(`beside ${online} idle phones`);

  await generators.stop(true);
  await generators.close();
  generators = undefined;
  await settle();
  await measure('alone again');
} finally {
  meter.stop();
  await generators?.close();
  await Promise.all(phones.map((phone) => phone.stop()));
  await gateway.stop();
  if (db) await closeDatabase(db);
  await database.drop();
}

const alone = phases.filter((phase) => phase.name.startsWith('alone')).map((phase) => stats(phase.toTask).p99);
const aloneP99 = alone.reduce((sum, value) => sum + value, 0) / Math.max(1, alone.length);
printTable(
  `Dispatch latency at ${RATE} SMS/s through ${DEVICES} phones, alone and beside ${online} idle connected phones (target: p99 within 20% of alone)`,
  phases.map((phase) => {
    const task = stats(phase.toTask);
    const accepted = stats(phase.accepted);
    return {
      phase: phase.name,
      SMS: phase.accepted.length,
      'POST -> task p50 / p99 / max ms': `${task.p50} / ${task.p99} / ${task.max}`,
      'POST -> 201 p50 / p99 ms': `${accepted.p50} / ${accepted.p99}`,
      'task p99 / alone': aloneP99 ? (task.p99 / aloneP99).toFixed(2) : 'n/a',
      'gateway loop delay p99 / max ms': phase.load ? `${phase.load.loopDelayP99Ms.toFixed(1)} / ${phase.load.loopDelayMaxMs.toFixed(1)}` : 'n/a',
      'gateway CPU / GC time': phase.load ? `${percent(phase.load.gatewayCpu)} / ${percent(phase.load.gcShare)}` : 'n/a',
      'PostgreSQL CPU': phase.load ? percent(phase.load.postgresCpu) : 'n/a',
      'machine busy': phase.load ? percent(phase.load.machineBusy) : 'n/a',
    };
  }),
);
function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

// Whatever a stopped generator left open, a benchmark ends when it is done.
process.exit(0);
