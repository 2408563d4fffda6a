// Pacing: PACING_PHONES simulated phones (default 100), each limited to PACING_PER_MINUTE sends a
// minute (default 20; per_hour and per_day off) with a send window of PACING_WINDOW (default 5),
// phones that send fast (a few tens of ms per SMS). PACING_SMS SMS (default 20,000) are queued at
// once through POST /api/ext/v1/sms/bulk (1,000 a call), far more than the phones may take in the
// run, and the run lasts PACING_SECONDS (default 180; `--seconds N` too). Meanwhile a trickle of
// PACING_TRICKLE single POST /api/ext/v1/sms a second (default 5) measures the API's latency.
//
// Measured:
// - every phone's sends in any rolling 60 s, from the phones' side (when each task arrived) and
//   from the gateway's dispatch log (device_dispatches, the rows the limit is counted on);
// - the fleet's tasks per minute, minute by minute from the first bulk call;
// - CPU of the gateway process (the whole `sms-gateway serve` process: user + system time from
//   /proc) and of the PostgreSQL backends serving the run's database, while pacing;
// - POST /sms latency of the trickle.
// Targets: no phone above its limit in any rolling minute; the fleet at >= 95% of
// phones x per_minute in every minute after the first.
import knexModule from 'knex';
import { Agent, request } from 'undici';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { CpuOfProcesses, freshDatabase, patchDeviceSettings, prepareTenant, printTable, processCpuMs, spawnGateway, stats } from './support.ts';

const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
};
const PHONES = Number(process.env.PACING_PHONES ?? 100);
const PER_MINUTE = Number(process.env.PACING_PER_MINUTE ?? 20);
const WINDOW = Number(process.env.PACING_WINDOW ?? 5);
const SMS = Number(process.env.PACING_SMS ?? 20_000);
const SECONDS = Number(flag('seconds') ?? process.env.PACING_SECONDS ?? 180);
const TRICKLE = Number(process.env.PACING_TRICKLE ?? 5);
const BULK = 1000;
const MINUTE = 60_000;

export interface PacingResult {
  perMinute: Record<string, string | number>[];
  summary: Record<string, string | number>[];
  /** When a phone was handed more than its limit: its claims in that minute. */
  evidence: string | undefined;
}

export async function pacing(): Promise<PacingResult> {
  const database = await freshDatabase('pacing');
  const tenant = await prepareTenant(database.url, PHONES);
  const gateway = await spawnGateway(database.url);
  const api = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
  const base = `http://127.0.0.1:${gateway.port}`;
  const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
  const agent = new Agent({ connections: 8 });
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const gatewayPid = gateway.child.pid!;
  // PostgreSQL backends serving this run's database (other work on the server is left out).
  const backends = new CpuOfProcesses('postgres', ` ${new URL(database.url).pathname.slice(1)} `);

  // Per phone: when each task arrived (ms since t0), first deliveries only.
  const arrivals = new Map<string, number[]>();
  let redelivered = 0;
  let sent = 0;
  let t0 = 0;
  const phones = tenant.devices.map(
    (device) =>
      new SimulatedDevice({
        brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
        deviceId: device.id,
        token: device.token,
        delays: { processing: 10, sent: 40, delivered: 100 },
      }),
  );
  const trickle: number[] = [];
  let trickleFailed = 0;
  const cpu: { at: number; gateway: number; postgres: number }[] = [];
  const sampleCpu = () => cpu.push({ at: performance.now() - t0, gateway: processCpuMs(gatewayPid) ?? NaN, postgres: backends.totalMs() });
  let queuedMs = 0;
  let endMs = 0;
  try {
    for (const device of tenant.devices) {
      await patchDeviceSettings(base, tenant.key, device.id, {
        send_window: WINDOW,
        limits: { per_minute: PER_MINUTE, per_hour: null, per_day: null },
      });
    }
    for (const phone of phones) {
      const times: number[] = [];
      arrivals.set(phone.id, times);
      phone.on('task', (_task, again) => {
        if (again) redelivered++;
        else times.push(performance.now() - t0);
      });
      phone.on('report', (_id, status) => {
        if (status === 'sent') sent++;
      });
    }
    await Promise.all(phones.map((phone) => phone.connect()));

    // Queue everything at once: the bulk calls two at a time.
    t0 = performance.now();
    const wallStart = new Date();
    sampleCpu();
    let nextCall = 0;
    const calls = Math.ceil(SMS / BULK);
    const bulkWorker = async () => {
      while (nextCall < calls) {
        const call = nextCall++;
        const count = Math.min(BULK, SMS - call * BULK);
        const messages = Array.from({ length: count }, (_, i) => ({ phone: '+79161234567', message: `pacing ${call * BULK + i}` }));
        const response = await request(`${api}/sms/bulk`, { method: 'POST', headers, dispatcher: agent, body: JSON.stringify({ messages }) });
        if (response.statusCode !== 201) throw new Error(`bulk call ${call} answered ${response.statusCode}: ${await response.body.text()}`);
        await response.body.dump();
      }
    };
    await Promise.all([bulkWorker(), bulkWorker()]);
    queuedMs = performance.now() - t0;
    sampleCpu();

    // The trickle, open loop, until the end of the run; CPU sampled at every minute boundary.
    const end = t0 + SECONDS * 1000;
    const minuteTimers = Array.from({ length: Math.floor(SECONDS / 60) }, (_, k) =>
      setTimeout(sampleCpu, Math.max(0, t0 + (k + 1) * MINUTE - performance.now())),
    );
    const requests: Promise<void>[] = [];
    for (let i = 0; ; i++) {
      const due = t0 + queuedMs + (i * 1000) / TRICKLE;
      if (due >= end) break;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      requests.push(
        (async () => {
          const started = performance.now();
          const response = await request(`${api}/sms`, {
            method: 'POST',
            headers,
            dispatcher: agent,
            body: JSON.stringify({ phone: '+79161234567', message: `trickle ${i}` }),
          });
          await response.body.dump();
          if (response.statusCode === 201) trickle.push(performance.now() - started);
          else trickleFailed++;
        })().catch(() => void trickleFailed++),
      );
    }
    // A timer may fire a fraction of a millisecond early: wait until the end has really come.
    while (performance.now() < end) await new Promise((resolve) => setTimeout(resolve, Math.max(1, end - performance.now())));
    endMs = performance.now() - t0;
    minuteTimers.forEach(clearTimeout);
    sampleCpu();
    await Promise.all(requests);

    // The gateway's own record of every task handed out during the run.
    const logged = (await db('device_dispatches')
      .where('dispatched_at', '>=', wallStart)
      .select('device_id', 'dispatched_at')) as { device_id: string; dispatched_at: Date }[];
    const dispatches = new Map<string, number[]>();
    for (const row of logged) {
      const list = dispatches.get(row.device_id) ?? [];
      list.push(row.dispatched_at.getTime() - wallStart.getTime());
      dispatches.set(row.device_id, list);
    }
    // Tasks in flight at each phone right after each claim, by the gateway's own record: handed out
    // (dispatched_at) and not yet out of flight (the first sent or failed entry of the history).
    const flights = (await db.raw(
      `select s.device_id, s.dispatched_at,
              (select min(h.created_at) from sms_status_history h
                where h.sms_id = s.id and h.status in ('sent','failed_send','delivered','undelivered','failed_delivery')) as freed_at
         from sms s where s.dispatched_at >= ?`,
      [wallStart],
    )).rows as { device_id: string; dispatched_at: Date; freed_at: Date | null }[];
    const windows = maxInFlight(flights);
    const pendingLeft = Number((await db('sms').where({ status: 'pending' }).whereNull('dispatched_at').count({ n: '*' }).first())?.n);

    return report({ arrivals, dispatches, cpu, trickle, trickleFailed, queuedMs, endMs, redelivered, sent, pendingLeft, inFlight: windows });
  } finally {
    backends.stop();
    await Promise.all(phones.map((phone) => phone.kill()));
    await gateway.stop();
    await agent.close();
    await db.destroy();
    await database.drop();
  }
}

interface Measured {
  arrivals: Map<string, number[]>;
  dispatches: Map<string, number[]>;
  cpu: { at: number; gateway: number; postgres: number }[];
  trickle: number[];
  trickleFailed: number;
  queuedMs: number;
  endMs: number;
  redelivered: number;
  sent: number;
  pendingLeft: number;
  inFlight: { max: number; claimsOverWindow: number; claims: number };
}

/** Highest number of tasks in flight at one phone just after a claim, and how many claims left more than the window. */
function maxInFlight(rows: { device_id: string; dispatched_at: Date; freed_at: Date | null }[]): { max: number; claimsOverWindow: number; claims: number } {
  const byDevice = new Map<string, { at: number; freed: number }[]>();
  for (const row of rows) {
    const list = byDevice.get(row.device_id) ?? [];
    list.push({ at: row.dispatched_at.getTime(), freed: row.freed_at?.getTime() ?? Infinity });
    byDevice.set(row.device_id, list);
  }
  let max = 0;
  let claimsOverWindow = 0;
  let claims = 0;
  for (const tasks of byDevice.values()) {
    for (const at of new Set(tasks.map((task) => task.at))) {
      const open = tasks.filter((task) => task.at <= at && task.freed > at).length;
      claims++;
      if (open > WINDOW) claimsOverWindow++;
      max = Math.max(max, open);
    }
  }
  return { max, claimsOverWindow, claims };
}

/** Most events in any half-open window of `span` ms, and the shortest time that holds limit + 1 of them. */
function rolling(times: number[], span: number, limit: number): { max: number; tightest: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let tightest = Infinity;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= span) i++;
    max = Math.max(max, j - i + 1);
    if (j >= limit) tightest = Math.min(tightest, sorted[j]! - sorted[j - limit]!);
  }
  return { max, tightest };
}

function report(m: Measured): PacingResult {
  const target = PHONES * PER_MINUTE;
  const minutes = Math.floor(m.endMs / MINUTE);
  const phoneSide = [...m.arrivals.values()].map((times) => rolling(times, MINUTE, PER_MINUTE));
  const logSide = [...m.dispatches.values()].map((times) => rolling(times, MINUTE, PER_MINUTE));
  const worst = (list: { max: number; tightest: number }[]) => ({
    max: Math.max(0, ...list.map((r) => r.max)),
    tightest: Math.min(Infinity, ...list.map((r) => r.tightest)),
    over: list.filter((r) => r.max > PER_MINUTE).length,
    // Over the limit only because some rolling minute held its 21st send less than a second early.
    narrowly: list.filter((r) => r.max > PER_MINUTE && r.tightest >= MINUTE - 1000).length,
  });
  const phoneWorst = worst(phoneSide);
  const logWorst = worst(logSide);
  const allArrivals = [...m.arrivals.values()].flat();
  const allDispatches = [...m.dispatches.values()].flat();
  const inMinute = (times: number[], k: number) => times.filter((t) => t >= k * MINUTE && t < (k + 1) * MINUTE).length;
  const cpuAt = (ms: number) => m.cpu.reduce((best, s) => (Math.abs(s.at - ms) < Math.abs(best.at - ms) ? s : best), m.cpu[0]!);
  const cpuShare = (from: { at: number; gateway: number; postgres: number }, to: typeof from) => ({
    gateway: `${((100 * (to.gateway - from.gateway)) / (to.at - from.at)).toFixed(1)}%`,
    postgres: `${((100 * (to.postgres - from.postgres)) / (to.at - from.at)).toFixed(1)}%`,
  });

  const perMinute: Record<string, string | number>[] = [];
  for (let k = 0; k < minutes; k++) {
    const phones = inMinute(allArrivals, k);
    const share = cpuShare(cpuAt(k * MINUTE), cpuAt((k + 1) * MINUTE));
    perMinute.push({
      minute: `${k + 1}${k === 0 ? ` (incl. queueing ${(m.queuedMs / 1000).toFixed(1)} s)` : ''}`,
      'tasks at phones': phones,
      'dispatch log': inMinute(allDispatches, k),
      [`of ${target.toLocaleString('en-US')}`]: `${((100 * phones) / target).toFixed(1)}%`,
      'gateway CPU': share.gateway,
      'postgres CPU': share.postgres,
    });
  }
  const later = perMinute.slice(1).map((row) => Number(row['tasks at phones']));
  const lowest = later.length > 0 ? Math.min(...later) : NaN;
  const last = m.cpu[m.cpu.length - 1]!;
  const paced = m.endMs >= 2 * MINUTE ? cpuShare(cpuAt(MINUTE), last) : { gateway: 'n/a', postgres: 'n/a' };
  const queueing = cpuShare(m.cpu[0]!, m.cpu[1]!);
  const latency = stats(m.trickle);
  const perPhone = [...m.arrivals.values()].map((times) => times.length).sort((a, b) => a - b);
  const fmt = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(3)} s` : 'n/a');
  const summary: Record<string, string | number>[] = [
    { measure: 'SMS queued (bulk, 1,000 a call, 2 calls at a time)', value: `${SMS.toLocaleString('en-US')} in ${(m.queuedMs / 1000).toFixed(1)} s`, target: '', '': '' },
    {
      measure: 'max sends of one phone in any rolling 60 s (phones)',
      value: phoneWorst.max,
      target: `<= ${PER_MINUTE}`,
      '': phoneWorst.max <= PER_MINUTE ? 'pass' : 'MISS',
    },
    {
      measure: 'max sends of one phone in any rolling 60 s (dispatch log)',
      value: logWorst.max,
      target: `<= ${PER_MINUTE}`,
      '': logWorst.max <= PER_MINUTE ? 'pass' : 'MISS',
    },
    { measure: `phones handed more than ${PER_MINUTE} in some rolling 60 s (phones / log)`, value: `${phoneWorst.over} / ${logWorst.over} of ${PHONES} (${phoneWorst.narrowly} / ${logWorst.narrowly} of them by < 1 s only)`, target: '0', '': '' },
    {
      measure: `shortest time spanning ${PER_MINUTE + 1} sends of one phone (phones / log)`,
      value: `${fmt(phoneWorst.tightest)} / ${fmt(logWorst.tightest)}`,
      target: '>= 60 s',
      '': '',
    },
    {
      measure: 'most tasks in flight at one phone after a claim (gateway record)',
      value: `${m.inFlight.max} (${m.inFlight.claimsOverWindow} of ${m.inFlight.claims} claims left more than ${WINDOW})`,
      target: `<= ${WINDOW} (send_window)`,
      '': m.inFlight.max <= WINDOW ? 'pass' : 'MISS',
    },
    { measure: 'tasks per phone over the run (min / median / max)', value: `${perPhone[0]} / ${perPhone[Math.floor(perPhone.length / 2)]} / ${perPhone[perPhone.length - 1]}`, target: '', '': '' },
    {
      measure: 'fleet tasks per minute after the first (lowest minute)',
      value: Number.isFinite(lowest) ? `${lowest} (${((100 * lowest) / target).toFixed(1)}%)` : 'n/a (run shorter than 2 minutes)',
      target: `>= ${Math.ceil(0.95 * target)} (95% of ${target})`,
      '': Number.isFinite(lowest) ? (lowest >= 0.95 * target ? 'pass' : 'MISS') : 'n/a',
    },
    { measure: 'gateway process CPU while queueing (of one core)', value: queueing.gateway, target: '', '': '' },
    { measure: 'gateway process CPU while pacing, after the first minute', value: paced.gateway, target: '', '': '' },
    { measure: 'PostgreSQL CPU while pacing, after the first minute', value: paced.postgres, target: '', '': '' },
    {
      measure: `POST /sms latency, ${TRICKLE}/s trickle while pacing (p50 / p99 / max)`,
      value: `${latency.p50} / ${latency.p99} / ${latency.max} ms (${latency.count} ok, ${m.trickleFailed} failed)`,
      target: '',
      '': '',
    },
    { measure: 'tasks redelivered / sent reports / SMS still queued at the end', value: `${m.redelivered} / ${m.sent} / ${m.pendingLeft}`, target: '', '': '' },
  ];
  const evidence = [worstMinute(m.dispatches, 'dispatch log', 0), worstMinute(m.arrivals, 'at the phone', 100)].filter(Boolean).join('\n');
  return { perMinute, summary, evidence: evidence || undefined };
}

/**
 * The phone with the busiest rolling minute, and its tasks in that minute grouped in bursts (the
 * rows of one claim share its time in the dispatch log; at the phone, arrivals within `gapMs`).
 */
function worstMinute(dispatches: Map<string, number[]>, side: string, gapMs: number): string | undefined {
  let worst: { device: string; from: number; times: number[] } | undefined;
  for (const [device, times] of dispatches) {
    const sorted = [...times].sort((a, b) => a - b);
    for (let i = 0, j = 0; j < sorted.length; j++) {
      while (sorted[j]! - sorted[i]! >= MINUTE) i++;
      if (j - i + 1 > PER_MINUTE && (!worst || j - i + 1 > worst.times.length)) worst = { device, from: sorted[i]!, times: sorted.slice(i, j + 1) };
    }
  }
  if (!worst) return undefined;
  const bursts: [number, number][] = [];
  for (const t of worst.times) {
    const last = bursts[bursts.length - 1];
    if (last && t - last[0] <= gapMs) last[1]++;
    else bursts.push([t, 1]);
  }
  const list = bursts.map(([t, n]) => `+${((t - worst!.from) / 1000).toFixed(3)} s x${n}`).join(', ');
  return `${side}: phone ${worst.device} got ${worst.times.length} tasks within 60 s (limit ${PER_MINUTE}, window ${WINDOW}); bursts (time after the first, tasks): ${list}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await pacing();
  printTable(`Pacing, minute by minute: ${PHONES} phones, ${PER_MINUTE}/min each, window ${WINDOW}, ${SMS} SMS queued, ${SECONDS} s`, result.perMinute);
  printTable(
    `Pacing: ${PHONES} phones at ${PER_MINUTE}/min (targets: no phone above ${PER_MINUTE} in any rolling minute; fleet >= 95% of ${PHONES * PER_MINUTE}/min after the first minute)`,
    result.summary,
  );
  if (result.evidence) process.stdout.write(`\n${result.evidence}\n`);
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
