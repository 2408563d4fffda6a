// What a phone's connection costs PostgreSQL: the statements the gateway runs for each phone that
// connects (CONNECT, subscriptions, presence, the first heartbeat), for each that disconnects, and
// for each that comes back, counted by kind. A fleet's online time and its reconnect storm after a
// restart are bound by these (scripts/bench/fleet.ts): a statement per phone is 10,000 statements
// for a fleet of 10,000.
//
// A gateway in this process on a fresh PostgreSQL database, CONNECT_DEVICES simulated phones
// (default 200; one account) connecting CONNECT_CONCURRENCY (50) at a time; knex's 'query' event
// counts each statement, grouped by its text with literals left out.
//
//   npx tsx scripts/bench/connect-queries.ts          (statements per phone in each phase)
//   SHOW_SQL=1 npx tsx scripts/bench/connect-queries.ts (each kind's text, cut to 140 characters)
import { loadConfig } from '../../src/config.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freshDatabase, positiveIntegerSetting, startBenchGateway } from './support.ts';

const DEVICES = positiveIntegerSetting('CONNECT_DEVICES', 200);
const CONCURRENCY = positiveIntegerSetting('CONNECT_CONCURRENCY', 50);

interface Query {
  sql: string;
}

/** A statement's kind: its text with numbers, strings and parameter lists taken out. */
function kindOf(sql: string): string {
  return sql
    .replace(/'[^']*'/g, "'?'")
    .replace(/\$\d+/g, '?')
    .replace(/\b\d+\b/g, 'N')
    .replace(/(\?, )+\?/g, '?...')
    .replace(/\s+/g, ' ')
    .slice(0, 140);
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(run));
}

async function main(): Promise<void> {
  const database = await freshDatabase('connect');
  const defaults = loadConfig({});
  const { gateway, accountId } = await startBenchGateway(database.url, {
    logLevel: 'silent',
    // Every phone connects from 127.0.0.1; a busy machine must not turn CONNECTs away either.
    mqtt: { ...defaults.mqtt, maxConnectionsPerAddress: DEVICES + 100 },
    admission: { ...defaults.admission, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
  });
  const db = gateway.services.db;
  const registered: { id: string; token: string }[] = [];
  for (let i = 0; i < DEVICES; i++) {
    const { device, token } = await gateway.services.devices.register(accountId, `connect-phone-${i + 1}`);
    registered.push({ id: device.id, token });
  }
  const phones = registered.map(
    ({ id, token }) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: id, token, reconnectPeriodMs: 0 }),
  );
  const heartbeatsStored = async () => {
    const row = (await db('devices').where({ account_id: accountId }).whereNotNull('battery_level').count({ n: '*' }).first()) as { n: string | number };
    return Number(row.n);
  };

  const measure = async (phase: string, run: () => Promise<void>, settled: () => Promise<boolean>) => {
    const queries: Query[] = [];
    const heard = (query: Query) => void queries.push(query);
    db.on('query', heard);
    const started = performance.now();
    await run();
    // What a phase sets off after its last packet (the heartbeat's write, presence's rows) counts too.
    for (let waited = 0; !(await settled()) && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    db.off('query', heard);
    const elapsed = performance.now() - started;
    const kinds = new Map<string, number>();
    for (const query of queries) kinds.set(kindOf(query.sql), (kinds.get(kindOf(query.sql)) ?? 0) + 1);
    console.log(`\n${phase}: ${queries.length} statements for ${DEVICES} phones, ${(queries.length / DEVICES).toFixed(2)} per phone, ${(elapsed / 1000).toFixed(1)} s`);
    for (const [kind, count] of [...kinds].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${(count / DEVICES).toFixed(2).padStart(6)}  ${process.env.SHOW_SQL ? kind : kind.slice(0, 70)}`);
    }
  };

  const online = () => gateway.services.presence.onlineDevices(accountId).length;
  await measure('connect (first time)', () => inBatches(phones, CONCURRENCY, (phone) => phone.connect()), async () => online() === DEVICES && (await heartbeatsStored()) === DEVICES);
  await measure('disconnect', () => inBatches(phones, CONCURRENCY, (phone) => phone.stop()), async () => online() === 0);
  const again = registered.map(
    ({ id, token }) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: id, token, reconnectPeriodMs: 0 }),
  );
  await measure('connect again', () => inBatches(again, CONCURRENCY, (phone) => phone.connect()), async () => online() === DEVICES);
  await inBatches(again, CONCURRENCY, (phone) => phone.stop());
  await gateway.stop();
  await database.drop();
}

await main();
