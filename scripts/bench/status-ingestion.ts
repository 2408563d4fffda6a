// Scenario 4, status ingestion: a backlog of INGEST_SMS SMS (default 20,000) waits assigned to
// INGEST_DEVICES phones (default 10); the phones connect, take every task and report processing,
// sent and delivered as fast as they can. Measures status reports applied per second and checks
// that the backlog drains with nothing left in a non-final state. Baseline in the same run: the
// same number of reports applied the naive way, one UPDATE per report over a pool of 10
// connections (no history, no state machine), on the same PostgreSQL.
// Target: at least 5,000 reports applied per second.
import knexModule from 'knex';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { freshDatabase, liftDeviceLimits, prepareTenant, printTable, ratio, spawnGateway } from './support.ts';

const SMS = Number(process.env.INGEST_SMS ?? 20_000);
const DEVICES = Number(process.env.INGEST_DEVICES ?? 10);

export async function statusIngestion(): Promise<Record<string, string | number>[]> {
  const database = await freshDatabase('ingest');
  const tenant = await prepareTenant(database.url, DEVICES);
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 10 } });
  try {
    await fillBacklog(db, tenant.accountId, tenant.devices.map((device) => device.id));
    const baselineSeconds = await naiveUpdates(db);

    const gateway = await spawnGateway(database.url);
    // The pacing defaults (5 in flight, 20 a minute) protect a real SIM; lifted here as before them.
    await liftDeviceLimits(`http://127.0.0.1:${gateway.port}`, tenant.key, tenant.devices.map((device) => device.id));
    const phones = tenant.devices.map(
      (device) => new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, deviceId: device.id, token: device.token }),
    );
    let delivered = 0;
    let finished!: () => void;
    const allDelivered = new Promise<void>((resolve) => (finished = resolve));
    for (const phone of phones) {
      phone.on('report', (_id, status) => {
        if (status === 'delivered' && ++delivered === SMS) finished();
      });
    }
    const started = performance.now();
    try {
      await Promise.all(phones.map((phone) => phone.connect()));
      await Promise.race([allDelivered, new Promise((resolve) => setTimeout(resolve, 180_000))]);
    } finally {
      await Promise.all(phones.map((phone) => phone.stop()));
      await gateway.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const left = await db('sms').whereNotIn('status', ['delivered', 'undelivered', 'failed_send', 'failed_delivery']).count({ n: '*' }).first();
    const history = await db('sms_status_history').count({ n: '*' }).first();
    const reports = SMS * 3;
    return [
      { scenario: 'baseline: one UPDATE per report, 10 connections', reports, seconds: baselineSeconds.toFixed(1), 'reports/s': Math.round(reports / baselineSeconds), 'left non-final': '', 'ratio to baseline': '1.00' },
      {
        scenario: `gateway: ${DEVICES} phones report a backlog of ${SMS} SMS`,
        reports,
        seconds: seconds.toFixed(1),
        'reports/s': Math.round(reports / seconds),
        'left non-final': `${Number(left?.n)} (history rows ${Number(history?.n)})`,
        'ratio to baseline': ratio(reports / seconds, reports / baselineSeconds),
      },
    ];
  } finally {
    await db.destroy();
    await database.drop();
  }
}

async function fillBacklog(db: knexModule.Knex, accountId: string, deviceIds: string[]): Promise<void> {
  await db.raw(
    `insert into sms (id, object_id, account_id, device_id, device_named, phone, message, status, created_at, updated_at)
     select gen_random_uuid(), lpad(to_hex(i), 24, '0'), ?, (?::uuid[])[1 + i % ?], false, '+79161234567', 'backlog ' || i, 'pending',
            now() - interval '1 hour' + (i || ' milliseconds')::interval, now()
       from generate_series(1, ?) as i`,
    [accountId, deviceIds, deviceIds.length, SMS],
  );
  await db.raw(`insert into sms_status_history (sms_id, status, source, created_at) select id, 'pending', 'api', created_at from sms`);
  await db.raw('analyze sms');
}

/** The naive way on a copy of the backlog: one UPDATE statement per report. */
async function naiveUpdates(db: knexModule.Knex): Promise<number> {
  await db.raw('create table naive as select id, status from sms');
  await db.raw('alter table naive add primary key (id)');
  const ids = (await db('naive').pluck('id')) as string[];
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      for (const status of ['processing', 'sent', 'delivered']) await db('naive').where({ id }).update({ status });
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  const seconds = (performance.now() - started) / 1000;
  await db.raw('drop table naive');
  return seconds;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable('Status ingestion (target: >= 5,000 reports applied per second, nothing left non-final)', await statusIngestion());
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
