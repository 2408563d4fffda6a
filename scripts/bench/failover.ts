// Failover: a phone holding FAILOVER_TASKS unacknowledged tasks (default 50) disappears, its TCP
// connection cut without DISCONNECT, while FAILOVER_OTHERS other phones (default 4, default
// pacing) are online.
// The gateway runs with FAILOVER_AFTER=FAILOVER_SECONDS (default 5). Measures the time from the
// cut until the tasks are back in the pool (SMS rows no longer on the phone), until every one is
// on another phone in the database (device_id), and until the other phones have received all of
// them; FAILOVER_REPEATS times (default 3), each with a phone of its own.
//
// The disappearing phone is a raw MQTT client that connects, subscribes and announces itself as
// the app does, receives its tasks (MQTT PUBACK, as any client), and never reports on them: not
// one "processing". Its send window is 50 and it has no rate limits, so that it can hold 50.
// The other phones keep the default pacing (window 5, 20 a minute, ...) and report every task at
// once (SimulatedDevice); each run has other phones of its own, so no run inherits the rate
// limits an earlier one used up.
// Expected: FAILOVER_AFTER, plus up to one sweep interval (1 s), plus a claim.
import knexModule from 'knex';
import mqtt from 'mqtt';
import { request } from 'undici';
import { deviceTopic } from '../../broker/topics.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { freshDatabase, liftDeviceLimits, prepareTenant, printTable, spawnGateway } from './support.ts';

const TASKS = Number(process.env.FAILOVER_TASKS ?? 50);
const OTHERS = Number(process.env.FAILOVER_OTHERS ?? 4);
const AFTER_SECONDS = Number(process.env.FAILOVER_SECONDS ?? 5);
const REPEATS = Number(process.env.FAILOVER_REPEATS ?? 3);
/** Longest wait for the tasks to move, beyond FAILOVER_AFTER. */
const GIVE_UP_MS = 30_000;
const POLL_MS = 20;

export async function failover(): Promise<Record<string, string | number>[]> {
  const database = await freshDatabase('failover');
  const tenant = await prepareTenant(database.url, REPEATS * (1 + OTHERS));
  const gateway = await spawnGateway(database.url, { FAILOVER_AFTER: String(AFTER_SECONDS) });
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const base = `http://127.0.0.1:${gateway.port}`;
  const brokerUrl = `mqtt://127.0.0.1:${gateway.mqttPort}`;
  const holders = tenant.devices.slice(0, REPEATS);
  const rows: Record<string, string | number>[] = [];
  try {
    await liftDeviceLimits(base, tenant.key, holders.map((device) => device.id));
    for (let run = 0; run < REPEATS; run++) {
      const holder = holders[run]!;
      // 1. Only the holder online: it takes every task of the batch and acknowledges none.
      const client = await mqtt.connectAsync(brokerUrl, {
        clientId: holder.id,
        username: holder.id,
        password: holder.token,
        protocolVersion: 4,
        clean: true,
        keepalive: 60,
        reconnectPeriod: 0,
        will: { topic: deviceTopic(holder.id, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
      });
      const held = new Set<string>();
      let allHeld!: () => void;
      const heldAll = new Promise<void>((resolve) => (allHeld = resolve));
      client.on('message', (topic, payload) => {
        if (topic !== deviceTopic(holder.id, 'tasks')) return;
        held.add((JSON.parse(payload.toString()) as SendTask).sms_id);
        if (held.size === TASKS) allHeld();
      });
      await client.subscribeAsync({ [deviceTopic(holder.id, 'tasks')]: { qos: 1 }, [deviceTopic(holder.id, 'settings')]: { qos: 1 } });
      await client.publishAsync(deviceTopic(holder.id, 'presence'), 'online', { qos: 1, retain: true });

      const messages = Array.from({ length: TASKS }, (_, i) => ({ phone: '+79161234567', message: `failover ${run} ${i}` }));
      const created = await request(`${base}/api/ext/v1/sms/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages }),
      });
      if (created.statusCode !== 201) throw new Error(`bulk answered ${created.statusCode}: ${await created.body.text()}`);
      const ids = ((await created.body.json()) as { data: { id: string }[] }).data.map((sms) => sms.id);
      await within(heldAll, 30_000, () => `the holder received ${held.size} of ${TASKS} tasks`);
      const onHolder = await db('sms').whereIn('id', ids).where({ device_id: holder.id, status: 'pending' }).whereNotNull('dispatched_at').count({ n: '*' }).first();
      if (Number(onHolder?.n) !== TASKS) throw new Error(`${Number(onHolder?.n)} of ${TASKS} SMS are handed to the holder`);

      // 2. The other phones come online (the pool is empty: they take nothing yet).
      const wanted = new Set(ids);
      const received = new Set<string>();
      let t0 = 0;
      let receivedAllAt = 0;
      const otherDevices = tenant.devices.slice(REPEATS + run * OTHERS, REPEATS + (run + 1) * OTHERS);
      const others = otherDevices.map((device) => new SimulatedDevice({ brokerUrl, deviceId: device.id, token: device.token }));
      for (const phone of others) {
        phone.on('task', (task) => {
          if (!wanted.has(task.sms_id) || received.has(task.sms_id)) return;
          received.add(task.sms_id);
          if (received.size === TASKS) receivedAllAt = performance.now() - t0;
        });
      }
      await Promise.all(others.map((phone) => phone.connect()));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (received.size > 0) throw new Error(`other phones took ${received.size} tasks before the holder disappeared`);

      // 3. The holder disappears: the socket is destroyed, no DISCONNECT.
      t0 = performance.now();
      client.stream.destroy();
      let releasedAt = 0;
      let movedAt = 0;
      while (performance.now() - t0 < AFTER_SECONDS * 1000 + GIVE_UP_MS) {
        const state = (await db('sms')
          .whereIn('id', ids)
          .select(
            db.raw('count(*) filter (where device_id is distinct from ?)::int as released', [holder.id]),
            db.raw('count(*) filter (where device_id is not null and device_id <> ?)::int as moved', [holder.id]),
          )
          .first()) as { released: number; moved: number };
        const at = performance.now() - t0;
        if (!releasedAt && state.released === TASKS) releasedAt = at;
        if (!movedAt && state.moved === TASKS) movedAt = at;
        if (movedAt && receivedAllAt) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      await client.endAsync(true).catch(() => undefined);

      // 4. Let the other phones finish the moved tasks, then take them offline for the next run.
      const deadline = performance.now() + 30_000;
      while (performance.now() < deadline) {
        const open = await db('sms').whereIn('id', ids).whereNot({ status: 'delivered' }).count({ n: '*' }).first();
        if (Number(open?.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await Promise.all(others.map((phone) => phone.stop()));

      const seconds = (ms: number) => (ms ? (ms / 1000).toFixed(2) : `not within ${AFTER_SECONDS + GIVE_UP_MS / 1000} s`);
      rows.push({
        run: run + 1,
        tasks: TASKS,
        'FAILOVER_AFTER s': AFTER_SECONDS,
        'back in pool s': seconds(releasedAt),
        'on other devices (rows) s': seconds(movedAt),
        'received by other phones s': seconds(receivedAllAt),
        'beyond FAILOVER_AFTER s': receivedAllAt ? (receivedAllAt / 1000 - AFTER_SECONDS).toFixed(2) : 'n/a',
        'other phones': `${OTHERS} (${new Set(others.filter((p) => [...p.handled.keys()].some((id) => wanted.has(id))).map((p) => p.id)).size} took some)`,
      });
    }
    return rows;
  } finally {
    await gateway.stop();
    await db.destroy();
    await database.drop();
  }
}

async function within(promise: Promise<void>, ms: number, what: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what()}`)), ms)))]);
  clearTimeout(timer);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    `Failover: a phone holding ${TASKS} unacknowledged tasks disappears (TCP cut, no DISCONNECT), ${OTHERS} other phones online, FAILOVER_AFTER=${AFTER_SECONDS} s, sweep every 1 s`,
    await failover(),
  );
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
