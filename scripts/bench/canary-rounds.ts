// Canary rounds: what a round costs the gateway. COUNT simulated phones (default 1,000, one SIM
// each, every SIM's number in its heartbeat) are connected to a fresh gateway with the simulated
// radio network between them (src/simulator/radio-network.ts): a canary SMS one phone sends
// arrives at the phone that owns the number and is forwarded, as on real phones. Canary rounds
// are switched on for the account (every 60 minutes, probes wait 60 s); then:
// - the gateway's CPU over an idle window (IDLE_SECONDS, default 60), with the phones connected
//   and heartbeating, rounds on but none running (a whole heartbeat period, so that it holds as
//   many heartbeats as any span of the same length);
// - ROUNDS rounds (default 3), each started with POST /api/ext/v1/account/canary/run and timed
//   until every probe of the round has ended (read from the database, not through the gateway,
//   so the waiting costs the gateway nothing), then a window of the same length after it for what
//   the gateway still does for the round (the SMS' last reports).
// A round's cost is its CPU and that of the window after it, each less the idle CPU of the same
// span; its share of a core is that cost over the interval (3,600 s). Target: under 1% of a core
// for 1,000 devices at a 60-minute interval, for every round.
//
// The gateway runs as its own process (`sms-gateway serve`, as the other benchmarks run it) on a
// fresh PostgreSQL database; its CPU is its own (user + system from /proc), apart from the
// simulated phones, which run in this process. The PostgreSQL backends of the run's database are
// measured too, apart.
//
// COUNT, ROUNDS, IDLE_SECONDS, CANARY_BROKEN (phones whose canaries never arrive, default 0: a
// drill; their probes fail at the 60 s timeout, so each round lasts that long),
// CANARY_LIMIT_S (the whole run, default 1,200). Targets 127.0.0.1 only, stops by itself.
import knexModule from 'knex';
import { loadavg, cpus } from 'node:os';
import { Fleet } from '../../src/simulator/fleet.ts';
import { CpuOfProcesses, freshDatabase, positiveIntegerSetting, prepareTenant, printTable, processCpuMs, spawnGateway, stats } from './support.ts';

const COUNT = positiveIntegerSetting('COUNT', 1_000);
const ROUNDS = positiveIntegerSetting('ROUNDS', 3);
const IDLE_SECONDS = positiveIntegerSetting('IDLE_SECONDS', 60);
const BROKEN = process.env.CANARY_BROKEN === undefined || process.env.CANARY_BROKEN === '0' ? 0 : positiveIntegerSetting('CANARY_BROKEN', 0);
const LIMIT_S = positiveIntegerSetting('CANARY_LIMIT_S', 1200);
const INTERVAL_MINUTES = 60;
const TIMEOUT_SECONDS = 60;
/** Share of one core a round may cost, spread over its interval. */
const TARGET_SHARE = 0.01;
/** Longest wait for a round's probes to end: the probe timeout, the overdue sweep and a margin. */
const ROUND_LIMIT_MS = (TIMEOUT_SECONDS + 90) * 1000;
/** How often the database is read for how the round stands. */
const TALLY_EVERY_MS = 100;

const log = (message: string) => process.stderr.write(`[canary ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface RoundFigures {
  round: number;
  probes: number;
  passed: number;
  failed: number;
  /** Still pending when the wait gave up (0 when the round ended). */
  pending: number;
  /** Until POST .../run answered: the round's SMS and probes written. */
  startS: number;
  wallS: number;
  /** This process's: the simulated phones and the radio network between them, during the round. */
  simulatorCpuS: number;
  cpuS: number;
  tailCpuS: number;
  netCpuS: number;
  postgresNetCpuS: number;
  roundTrip: ReturnType<typeof stats> & { min: number };
  /** p50/p99 ms from the round's start until its SMS reached each status. */
  stages: Record<string, string>;
}

async function main(): Promise<void> {
  log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}, ${cpus().length} cores`);
  const database = await freshDatabase('canary');
  const cleanups: (() => Promise<unknown>)[] = [() => database.drop()];
  const hardStop = setTimeout(() => {
    log(`not done within ${LIMIT_S} s: stopping`);
    void cleanUp(cleanups).finally(() => process.exit(2));
  }, LIMIT_S * 1000);
  hardStop.unref();
  try {
    log(`registering ${COUNT} devices`);
    const tenant = await prepareTenant(database.url, COUNT);
    const gateway = await spawnGateway(database.url, {
      // Every simulated phone connects from 127.0.0.1: lift the cap per address meant for NAT.
      MQTT_MAX_CONNECTIONS_PER_ADDRESS: String(COUNT + 100),
      MQTT_MAX_CONNECTIONS: String(COUNT + 100),
    });
    cleanups.unshift(() => gateway.stop());
    const baseUrl = `http://127.0.0.1:${gateway.port}`;
    const api = (path: string, method: string, body?: unknown) =>
      fetch(`${baseUrl}/api/ext/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
    cleanups.unshift(() => db.destroy());
    const backends = new CpuOfProcesses('postgres', ` ${new URL(database.url).pathname.slice(1)} `);
    cleanups.unshift(async () => backends.stop());

    const fleet = new Fleet({
      count: 0,
      given: tenant.devices.map((device, i) => ({ device_id: device.id, token: device.token, name: `canary-phone-${i + 1}` })),
      apiUrl: baseUrl,
      brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
      concurrency: 100,
      radioNetwork: { brokenSenders: tenant.devices.slice(0, BROKEN).map((device) => device.id) },
    });
    cleanups.unshift(() => fleet.stop());
    const connectStarted = Date.now();
    await fleet.start();
    log(`${fleet.devices.length} phones online in ${((Date.now() - connectStarted) / 1000).toFixed(1)} s; ${fleet.network!.sharedNumbers()} numbers shared by two SIMs`);
    await untilTrue('every SIM number known to the gateway', 60_000, async () => {
      const [{ known }] = (await db('devices')
        .where({ account_id: tenant.accountId })
        .whereRaw(`jsonb_array_length(sim_cards) > 0`)
        .count({ known: '*' })) as [{ known: string }];
      return Number(known) >= COUNT;
    });

    const enabled = await api('/account/canary', 'PATCH', { enabled: true, interval_minutes: INTERVAL_MINUTES, timeout_seconds: TIMEOUT_SECONDS });
    if (enabled.status !== 200) throw new Error(`canary rounds not switched on: ${enabled.status} ${await enabled.text()}`);
    log(`canary rounds on: ${JSON.stringify(await enabled.json())}`);

    const gatewayPid = gateway.child.pid!;
    const cpuS = () => processCpuMs(gatewayPid)! / 1000;
    // Let the connect storm's after-effects (last-seen writes, the first heartbeats) settle.
    await sleep(5_000);
    log(`idle window: ${IDLE_SECONDS} s`);
    const idleStart = { at: performance.now(), cpu: cpuS(), pg: backends.totalMs() / 1000 };
    // The database is read as often as while a round is watched, so that PostgreSQL's idle figure holds that reading too.
    const idleEnd = Date.now() + IDLE_SECONDS * 1000;
    while (Date.now() < idleEnd) {
      await roundTally(db, tenant.accountId, -1);
      await sleep(TALLY_EVERY_MS);
    }
    const idleWallS = (performance.now() - idleStart.at) / 1000;
    const idleRate = (cpuS() - idleStart.cpu) / idleWallS;
    const idlePgRate = (backends.totalMs() / 1000 - idleStart.pg) / idleWallS;
    log(`idle: gateway ${(idleRate * 100).toFixed(2)}% of a core, PostgreSQL ${(idlePgRate * 100).toFixed(2)}%`);

    const rounds: RoundFigures[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round = await oneRound(api, db, tenant.accountId, cpuS, () => backends.totalMs() / 1000, idleRate, idlePgRate);
      rounds.push(round);
      if (round.pending > 0) break;
    }

    const share = (cpu: number) => cpu / (INTERVAL_MINUTES * 60);
    printTable(`Canary rounds, ${COUNT.toLocaleString('en')} simulated devices (1 SIM each), interval ${INTERVAL_MINUTES} min, probe timeout ${TIMEOUT_SECONDS} s`, [
      ...rounds.map((round) => ({
        round: round.round,
        probes: round.probes,
        'passed/failed': `${round.passed}/${round.failed}${round.pending > 0 ? ` (${round.pending} pending: gave up)` : ''}`,
        'POST answered s': round.startS.toFixed(1),
        'wall s': round.wallS.toFixed(1),
        'gateway CPU s (round)': round.cpuS.toFixed(2),
        'gateway CPU s (after)': round.tailCpuS.toFixed(2),
        'gateway CPU s less idle': round.netCpuS.toFixed(2),
        'share of a core at 60 min': `${(share(round.netCpuS) * 100).toFixed(3)}%`,
        'PostgreSQL CPU s less idle': round.postgresNetCpuS.toFixed(2),
        'simulator CPU s': round.simulatorCpuS.toFixed(2),
        'round trip min/p50/p99 ms': `${round.roundTrip.min}/${round.roundTrip.p50}/${round.roundTrip.p99}`,
      })),
    ]);
    const degraded = (await db('sim_health')
      .join('devices', 'devices.id', 'sim_health.device_id')
      .where('devices.account_id', tenant.accountId)
      .whereNotNull('sim_health.degraded_since')
      .select('sim_health.degraded_fault as fault')
      .count({ n: '*' })
      .groupBy('sim_health.degraded_fault')) as { fault: string; n: string }[];
    const worst = Math.max(...rounds.map((round) => round.netCpuS));
    process.stdout.write(
      `\nidle: gateway ${(idleRate * 100).toFixed(2)}% of a core, PostgreSQL ${(idlePgRate * 100).toFixed(2)}% (${idleWallS.toFixed(1)} s window, ${COUNT} phones heartbeating every 60 s)\n` +
        `worst round: ${worst.toFixed(2)} gateway CPU s = ${(share(worst) * 100).toFixed(3)}% of a core at a ${INTERVAL_MINUTES}-minute interval ` +
        `(target < ${TARGET_SHARE * 100}%): ${share(worst) < TARGET_SHARE && rounds.every((round) => round.pending === 0) ? 'PASS' : 'FAIL'}` +
        `${rounds.some((round) => round.pending > 0) ? ' (a round did not end: its cost is a lower bound)' : ''}\n` +
        `SIMs degraded after the rounds: ${degraded.length === 0 ? 'none' : degraded.map((row) => `${row.n} (${row.fault})`).join(', ')}` +
        `${BROKEN > 0 ? ` (${BROKEN} phones' canaries never arrived)` : ''}\n` +
        `radio network: ${JSON.stringify(fleet.network!.stats)}; load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`,
    );
  } finally {
    clearTimeout(hardStop);
    await cleanUp(cleanups);
  }
}

async function oneRound(
  api: (path: string, method: string, body?: unknown) => Promise<Response>,
  db: knexModule.Knex,
  accountId: string,
  cpuS: () => number,
  postgresS: () => number,
  idleRate: number,
  idlePgRate: number,
): Promise<RoundFigures> {
  const [{ last }] = (await db('canary_probes').where({ account_id: accountId }).max({ last: 'round_number' })) as [{ last: number | null }];
  const start = { at: performance.now(), cpu: cpuS(), pg: postgresS(), simulator: process.cpuUsage() };
  const started = await api('/account/canary/run', 'POST');
  if (started.status !== 202) throw new Error(`round not started: ${started.status} ${await started.text()}`);
  await started.arrayBuffer();
  const startS = (performance.now() - start.at) / 1000;
  let tally: Tally = { probes: 0, pending: 0, passed: 0, failed: 0, round: -1 };
  const ended = await within(ROUND_LIMIT_MS, async () => {
    tally = await roundTally(db, accountId, last ?? -1);
    return tally.probes > 0 && tally.pending === 0;
  });
  // Probes still pending well past their deadline: the gateway could not keep up. The round is
  // measured as far as it went (its cost is then a lower bound) and no further round is started.
  if (!ended) log(`round ${tally.round}: ${tally.pending} probes still pending ${ROUND_LIMIT_MS / 1000} s after the start`);
  const wallS = (performance.now() - start.at) / 1000;
  const roundCpuS = cpuS() - start.cpu;
  const roundPgS = postgresS() - start.pg;
  const simulator = process.cpuUsage(start.simulator);
  // What the gateway still does for the round once its probes ended (the canary SMS' last
  // reports), over a window of the same length.
  const tailStart = { cpu: cpuS(), pg: postgresS(), at: performance.now() };
  await sleep(Math.max(1_000, wallS * 1000));
  const tailWallS = (performance.now() - tailStart.at) / 1000;
  const tailCpuS = cpuS() - tailStart.cpu;
  const tailPgS = postgresS() - tailStart.pg;
  const stages = await stageTimes(db, accountId, tally.round);
  const failures = (await db('canary_probes')
    .where({ account_id: accountId, round_number: tally.round, result: 'failed' })
    .select('failure')
    .count({ n: '*' })
    .groupBy('failure')) as { failure: string | null; n: string }[];
  if (failures.length > 0) log(`round ${tally.round}: failed probes by why: ${failures.map((row) => `${row.failure ?? '(none)'} ${row.n}`).join(', ')}`);
  const trips = (await db('canary_probes').where({ account_id: accountId, round_number: tally.round, result: 'passed' }).pluck('round_trip_ms')) as number[];
  const figures: RoundFigures = {
    round: tally.round,
    probes: tally.probes,
    passed: tally.passed,
    failed: tally.failed,
    pending: tally.pending,
    startS,
    wallS,
    simulatorCpuS: (simulator.user + simulator.system) / 1e6,
    cpuS: roundCpuS,
    tailCpuS,
    netCpuS: Math.max(0, roundCpuS - idleRate * wallS) + Math.max(0, tailCpuS - idleRate * tailWallS),
    postgresNetCpuS: Math.max(0, roundPgS - idlePgRate * wallS) + Math.max(0, tailPgS - idlePgRate * tailWallS),
    roundTrip: { ...stats(trips.map(Number)), min: Math.min(...trips.map(Number)) },
    stages,
  };
  log(`round ${figures.round}: ms from its start (p50/p99) to the SMS ${Object.entries(stages).map(([status, ms]) => `${status} ${ms}`).join(', ')}, code back ${figures.roundTrip.p50}/${figures.roundTrip.p99}`);
  log(`round ${figures.round}: ${figures.probes} probes (${figures.passed} passed, ${figures.failed} failed) in ${wallS.toFixed(1)} s; gateway CPU ${roundCpuS.toFixed(2)} s + ${tailCpuS.toFixed(2)} s after`);
  return figures;
}

/** Where a round's time goes: from the probes' start until each canary SMS was processing (at the phone), sent, delivered. */
async function stageTimes(db: knexModule.Knex, accountId: string, round: number): Promise<Record<string, string>> {
  const { rows } = await db.raw<{ rows: { status: string; p50: number; p99: number }[] }>(
    `select h.status,
            percentile_cont(0.5) within group (order by extract(epoch from h.created_at - p.created_at) * 1000) as p50,
            percentile_cont(0.99) within group (order by extract(epoch from h.created_at - p.created_at) * 1000) as p99
       from canary_probes p join sms_status_history h on h.sms_id = p.sms_id
      where p.account_id = ? and p.round_number = ? and h.status in ('processing', 'sent', 'delivered')
      group by h.status`,
    [accountId, round],
  );
  return Object.fromEntries(rows.map((row) => [row.status, `${Math.round(row.p50)}/${Math.round(row.p99)}`]));
}

interface Tally {
  round: number;
  probes: number;
  pending: number;
  passed: number;
  failed: number;
}

/** The probes of the rounds after `after`, by how they stand (read from the database: the gateway is not asked). */
async function roundTally(db: knexModule.Knex, accountId: string, after: number): Promise<Tally> {
  const rows = (await db('canary_probes')
    .where({ account_id: accountId })
    .andWhere('round_number', '>', after)
    .select('round_number', 'result')
    .count({ n: '*' })
    .groupBy('round_number', 'result')) as { round_number: number; result: string; n: string }[];
  const of = (result: string) => rows.filter((row) => row.result === result).reduce((sum, row) => sum + Number(row.n), 0);
  return { probes: of('pending') + of('passed') + of('failed'), pending: of('pending'), passed: of('passed'), failed: of('failed'), round: rows[0]?.round_number ?? -1 };
}

async function untilTrue(what: string, limitMs: number, check: () => Promise<boolean>): Promise<void> {
  if (!(await within(limitMs, check))) throw new Error(`${what}: not within ${limitMs / 1000} s`);
}

/** Whether `check` held within `limitMs`, asked every TALLY_EVERY_MS. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(TALLY_EVERY_MS);
  }
  return true;
}

async function cleanUp(cleanups: (() => Promise<unknown>)[]): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
}

await main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
