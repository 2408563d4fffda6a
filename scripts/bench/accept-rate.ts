// Scenario 1, accept rate: POST /api/ext/v1/sms (stored, devices online, PostgreSQL) at 64
// connections for ACCEPT_SECONDS (default 20), against a baseline measured in the same run: a
// bare Koa + @koa/router + @koa/bodyparser handler that echoes the body with 201.
// Target: at least 0.25 of the baseline's requests/s, p99 under 30 ms.
//
// Every accepted SMS is assigned to an online phone and its task published at once. The phones
// work like real ones, one SMS at a time (a phone sends a few SMS a second at best), so the run
// measures accepting and dispatching; a second run has the phones answer every task at once, so
// that all three status reports of every SMS are applied too (the whole path, end to end).
import autocannon from 'autocannon';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import { freshDatabase, liftDeviceLimits, prepareTenant, printTable, ratio, spawnGateway, spawnReady } from './support.ts';

const SECONDS = Number(process.env.ACCEPT_SECONDS ?? 20);
const CONNECTIONS = 64;
const DEVICES = 4;
const body = JSON.stringify({ phone: '+79161234567', message: 'Benchmark message: your code is 123456' });

export async function acceptRate(): Promise<Record<string, string | number>[]> {
  const baseline = await spawnReady(['scripts/bench/baseline-server.ts'], {}, (line) => typeof line.port === 'number');
  let base: autocannon.Result;
  try {
    base = await load(`http://127.0.0.1:${baseline.ready.port as number}/api/ext/v1/sms`, {});
  } finally {
    await baseline.stop();
  }

  const realistic = await againstGateway({ maxConcurrentTasks: 1, delays: { processing: 100, sent: 200, delivered: 300 } });
  const instant = await againstGateway({});

  const row = (name: string, result: autocannon.Result) => ({
    scenario: name,
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'non-2xx': result.non2xx + result.errors,
    'ratio to baseline': ratio(result.requests.average, base.requests.average),
  });
  return [
    row('baseline: bare Koa echo', base),
    row('gateway: POST /api/ext/v1/sms, stored, dispatched to phones sending one SMS at a time', realistic),
    row('gateway: the same, phones reporting every task at once (x3 reports)', instant),
  ];
}

async function againstGateway(phone: Partial<SimulatedDeviceOptions>): Promise<autocannon.Result> {
  const database = await freshDatabase('accept');
  const tenant = await prepareTenant(database.url, DEVICES);
  const gateway = await spawnGateway(database.url);
  const phones = tenant.devices.map(
    (device) => new SimulatedDevice({ ...phone, brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
  );
  try {
    // The pacing defaults (5 in flight, 20 a minute) protect a real SIM; lifted here as before them.
    await liftDeviceLimits(`http://127.0.0.1:${gateway.port}`, tenant.key, tenant.devices.map((device) => device.id));
    await Promise.all(phones.map((simulated) => simulated.connect()));
    return await load(`http://127.0.0.1:${gateway.port}/api/ext/v1/sms`, { authorization: `Bearer ${tenant.key}` });
  } finally {
    // Cut the phones off: a clean stop would wait for the whole backlog of reports.
    await Promise.all(phones.map((simulated) => simulated.kill()));
    await gateway.stop();
    await database.drop();
  }
}

function load(url: string, headers: Record<string, string>): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Accept rate: ${CONNECTIONS} connections for ${SECONDS} s (target: ratio >= 0.25, p99 < 30 ms)`, await acceptRate());
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
