// Scenario 1, accept rate: POST /api/ext/v1/sms (stored, devices online, PostgreSQL) at 64
// connections for ACCEPT_SECONDS (default 20), against a baseline measured in the same run: a
// bare Koa + @koa/router + @koa/bodyparser handler that echoes the body with 201.
// Target: at least 0.25 of the baseline's requests/s, p99 under 30 ms.
import autocannon from 'autocannon';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freshDatabase, prepareTenant, printTable, ratio, spawnGateway, spawnReady } from './support.ts';

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

  const database = await freshDatabase('accept');
  const tenant = await prepareTenant(database.url, DEVICES);
  const gateway = await spawnGateway(database.url);
  const phones = tenant.devices.map(
    (device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
  );
  let ours: autocannon.Result;
  try {
    await Promise.all(phones.map((phone) => phone.connect()));
    ours = await load(`http://127.0.0.1:${gateway.port}/api/ext/v1/sms`, { authorization: `Bearer ${tenant.key}` });
  } finally {
    await Promise.all(phones.map((phone) => phone.stop()));
    await gateway.stop();
    await database.drop();
  }

  const row = (name: string, result: autocannon.Result) => ({
    scenario: name,
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'non-2xx': result.non2xx + result.errors,
    'ratio to baseline': ratio(result.requests.average, base.requests.average),
  });
  return [row('baseline: bare Koa echo', base), row('gateway: POST /api/ext/v1/sms (stored, PostgreSQL)', ours)];
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
}
