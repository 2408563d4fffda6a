// Drill: PostgreSQL stops for 20 s under 50 SMS/s.
//
// The incident this guards against: while the database was down for 15 s, a failed status batch closed the
// phones' connections, their reconnects were refused (CONNACK 3) and they never tried again, and
// hundreds of SMS were still pending two minutes after the database came back. Here simulated
// phones (src/simulator, as `sms-gateway simulate` runs them) take SMS posted through the HTTP
// API at a steady rate from an in-process gateway; the drill's own PostgreSQL cluster (never the
// machine's server) is stopped for real (pg_ctl stop -m fast) and started again. Posts refused
// during the outage (503, or a 500 before the HTTP layer knew outages) are counted as refused,
// not lost: the client was told. It passes when every accepted SMS is final within 60 s of the
// database's return and no SMS was sent twice.
//
//   npx tsx scripts/drills/database-outage.ts
//   DATABASE_OUTAGE_SECONDS=5 DATABASE_OUTAGE_WARMUP_SECONDS=3 npx tsx scripts/drills/database-outage.ts   (quick)
//
// Settings (environment): DATABASE_OUTAGE_RATE (SMS a second, 50), DATABASE_OUTAGE_SECONDS (20),
// DATABASE_OUTAGE_WARMUP_SECONDS (before the stop and after the restart, 10),
// DATABASE_OUTAGE_DRAIN_SECONDS (the bound after the return, 60), DATABASE_OUTAGE_PHONES (20),
// DATABASE_OUTAGE_LOG_LEVEL (the gateway's log on stdout, default silent).
import { Writable } from 'node:stream';
import knexModule from 'knex';
import { loadConfig, type LogLevel } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { updateDeviceSettings } from '../../src/use-cases/update-device-settings.ts';
import { PrivatePostgres } from './support/private-postgres.ts';
import { readNumber, sleep, startSmsLoad } from './support/drill-kit.ts';

const NAME = 'database-outage';
const RATE = readNumber(NAME, 'DATABASE_OUTAGE_RATE', 50, 1, 1000);
const OUTAGE_S = readNumber(NAME, 'DATABASE_OUTAGE_SECONDS', 20, 1, 300);
const WARMUP_S = readNumber(NAME, 'DATABASE_OUTAGE_WARMUP_SECONDS', 10, 1, 300);
const DRAIN_S = readNumber(NAME, 'DATABASE_OUTAGE_DRAIN_SECONDS', 60, 1, 600);
const PHONES = readNumber(NAME, 'DATABASE_OUTAGE_PHONES', 20, 1, 500);
const LOG_LEVEL = (process.env.DATABASE_OUTAGE_LOG_LEVEL ?? 'silent') as LogLevel;
const FINAL = new Set(['delivered', 'undelivered', 'failed_send', 'failed_delivery']);
/** A POST taking longer than this counts as refused (the client would have given up). */
const POST_TIMEOUT_MS = 10_000;

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Warning and error lines the gateway logged, by message, and when (to tell outage lines apart). */
class LogTally extends Writable {
  readonly lines: { at: number; level: number; msg: string }[] = [];
  constructor(private readonly echo: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString().split('\n')) {
      if (!text.trim()) continue;
      if (this.echo) process.stdout.write(`${text}\n`);
      try {
        const line = JSON.parse(text) as { level: number; msg: string };
        if (line.level >= 40) this.lines.push({ at: Date.now(), level: line.level, msg: line.msg });
      } catch {
        // not a log line
      }
    }
    done();
  }
  between(from: number, to: number): Map<string, number> {
    const counts = new Map<string, number>();
    for (const line of this.lines) if (line.at >= from && line.at <= to) counts.set(line.msg, (counts.get(line.msg) ?? 0) + 1);
    return counts;
  }
}

async function main(): Promise<{ pass: boolean; summary: string }> {
  const postgres = await PrivatePostgres.create(NAME);
  let gateway: Gateway | undefined;
  let fleet: Fleet | undefined;
  try {
    const admin = knexModule.knex({ client: 'pg', connection: postgres.url, pool: { min: 0, max: 1 } });
    await admin.raw('create database sms_gateway_drill');
    await admin.destroy();
    const tally = new LogTally(LOG_LEVEL !== 'silent');
    const config = {
      ...loadConfig({}),
      port: 0,
      host: '127.0.0.1',
      mqttPort: 0,
      databaseUrl: postgres.database('sms_gateway_drill'),
      dataDir: ':memory:',
      logLevel: 'warn' as LogLevel,
    };
    gateway = await Gateway.start(config, createLogger(LOG_LEVEL === 'silent' ? 'warn' : LOG_LEVEL, tally));
    const account = await gateway.services.accounts.create('database-outage-drill');
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    const apiUrl = `http://127.0.0.1:${gateway.httpPort}/api/ext/v1`;

    fleet = new Fleet({
      count: PHONES,
      apiUrl: `http://127.0.0.1:${gateway.httpPort}`,
      apiKey: key,
      brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
      device: { delays: { processing: 20, sent: 50, delivered: 50 } },
    });
    await fleet.start();
    // No pacing: 50 SMS/s is more than 20 phones may send under the default limits (20 a minute).
    for (const device of fleet.devices) {
      await updateDeviceSettings(gateway.services, gateway.services.db, account.id, device.id, { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } });
    }
    console.log(`gateway on 127.0.0.1:${gateway.httpPort} (MQTT ${gateway.mqttPort}), private PostgreSQL on 127.0.0.1:${postgres.port}, ${PHONES} simulated phones`);
    console.log(`load ${RATE} SMS/s: ${WARMUP_S} s, then PostgreSQL stopped for ${OUTAGE_S} s, then ${WARMUP_S} s more`);

    // Reports the gateway held (unacknowledged, connections open) through the outage.
    let heldMost = 0;
    gateway.services.statusIngestor.on('held', (reports) => (heldMost = Math.max(heldMost, reports)));
    const loadStartedAt = Date.now();
    const load = startSmsLoad({ apiUrl, key, rate: RATE, timeoutMs: POST_TIMEOUT_MS });
    await sleep(WARMUP_S * 1000);
    const acceptedBefore = load.accepted.length;
    const stoppedAt = Date.now();
    await postgres.stop();
    console.log(`t=${seconds(stoppedAt - stoppedAt)} s  PostgreSQL stopped (${acceptedBefore} SMS accepted before)`);
    await sleep(Math.max(0, OUTAGE_S * 1000 - (Date.now() - stoppedAt)));
    const acceptedDuring = load.accepted.length - acceptedBefore;
    await postgres.start();
    const backAt = Date.now();
    console.log(`t=${seconds(backAt - stoppedAt)} s  PostgreSQL accepting connections again`);
    await sleep(WARMUP_S * 1000);
    await load.stop();
    const postsEndedAt = Date.now();

    // Every accepted SMS final, within the bound after the database's return.
    const db = gateway.services.db;
    const deadline = backAt + DRAIN_S * 1000;
    let open = load.accepted.length;
    let drainedAt: number | undefined;
    while (Date.now() < deadline) {
      const rows = (await db('sms').whereIn('id', load.accepted).whereNotIn('status', [...FINAL]).count({ n: '*' })) as { n: number }[];
      open = Number(rows[0]!.n);
      if (open === 0) {
        drainedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    const byStatus = (await db('sms').whereIn('id', load.accepted).select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number }[];

    // Sent twice: by one phone (its own count) or by two (the same id sent at two phones).
    const sentBy = new Map<string, number>();
    const takenBy = new Map<string, number>();
    for (const device of fleet.devices) {
      for (const [id, count] of device.sendCount) sentBy.set(id, (sentBy.get(id) ?? 0) + count);
      for (const id of device.handled.keys()) takenBy.set(id, (takenBy.get(id) ?? 0) + 1);
    }
    const sentTwice = [...sentBy.values()].filter((count) => count > 1).length;
    const takenByTwo = [...takenBy.values()].filter((count) => count > 1).length;
    const reconnects = fleet.devices.reduce((sum, device) => sum + device.reconnects, 0);
    const refused = [...load.refused].map(([reason, n]) => `${reason}: ${n}`).join(', ') || 'none';
    const refusedTotal = load.refusedTotal();

    console.log(`posted ${load.accepted.length + refusedTotal} in ${seconds(postsEndedAt - loadStartedAt)} s`);
    console.log(`accepted ${load.accepted.length} (before the stop ${acceptedBefore}, during ${acceptedDuring}, after ${load.accepted.length - acceptedBefore - acceptedDuring})`);
    console.log(`refused  ${refusedTotal} (${refused})`);
    console.log(`final statuses: ${byStatus.map((row) => `${row.status} ${row.n}`).join(', ')}`);
    console.log(
      drainedAt
        ? `every accepted SMS final ${seconds(drainedAt - backAt)} s after PostgreSQL came back (bound ${DRAIN_S} s)`
        : `${open} accepted SMS still not final ${DRAIN_S} s after PostgreSQL came back`,
    );
    console.log(`status reports held at once during the outage: up to ${heldMost}`);
    console.log(`phone reconnects ${reconnects}; tasks taken ${fleet.stats.tasks} (redelivered ${fleet.stats.redelivered}); SMS taken by two phones ${takenByTwo}; sent twice ${sentTwice}`);
    const outageLines = tally.between(stoppedAt, backAt + 5_000);
    console.log(`gateway warning/error log lines during the outage (+5 s): ${[...outageLines.values()].reduce((a, b) => a + b, 0)}`);
    for (const [msg, n] of [...outageLines].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${msg}`);

    const problems: string[] = [];
    if (!drainedAt) problems.push(`${open} accepted SMS not final within ${DRAIN_S} s of the database's return`);
    if (sentTwice > 0) problems.push(`${sentTwice} SMS sent twice`);
    if (load.accepted.length === 0) problems.push('no SMS accepted at all');
    const figures = `${load.accepted.length} accepted, ${refusedTotal} refused, all final ${drainedAt ? seconds(drainedAt - backAt) : '-'} s after the database returned, 0 sent twice, ${reconnects} reconnects`;
    return problems.length === 0 ? { pass: true, summary: figures } : { pass: false, summary: problems.join('; ') };
  } finally {
    await fleet?.stop().catch(() => {});
    await gateway?.stop().catch(() => {});
    postgres.removeNow();
  }
}

// Ctrl-C and kill still remove the private cluster (its exit handler runs on process.exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`DRILL ${NAME}: FAIL interrupted by ${signal}`);
    process.exit(1);
  });
}

main().then(
  ({ pass, summary }) => {
    console.log(`DRILL ${NAME}: ${pass ? 'PASS' : 'FAIL'} ${summary}`);
    process.exit(pass ? 0 : 1);
  },
  (error: unknown) => {
    console.log(`DRILL ${NAME}: FAIL ${(error as Error).message?.split('\n')[0] ?? String(error)}`);
    process.exit(1);
  },
);
