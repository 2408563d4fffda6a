// Wake-up: how soon another node hears "there is work" (an SMS created on node B wakes
// the node holding the phone). Two connections on 127.0.0.1, one sending, one listening:
//
// - Redis PUBLISH -> SUBSCRIBE (ioredis), timed from the PUBLISH;
// - PostgreSQL NOTIFY -> LISTEN (pg), timed from the NOTIFY, outside any transaction;
// - PostgreSQL: a transaction that inserts a row and NOTIFYs, timed from its COMMIT (a
//   notification leaves only when its transaction commits, so it waits for the commit's flush);
// - Redis: a transaction that inserts a row and commits, then PUBLISH, timed from the COMMIT.
//   The last two compare the ways a node can tell the others of an SMS it has just stored.
//
// WAKE_UP_MESSAGES (default 2,000) per way, one at a time: each goes once the previous arrived,
// so the figures are latency, not queueing. Runs on a fresh database (dropped at the end) and a
// channel of its own; a message not heard within 5 s stops the run.
//
//   npx tsx scripts/bench/wake-up.ts
//   WAKE_UP_MESSAGES=500 BENCH_REDIS_URL=redis://127.0.0.1:6380 npx tsx scripts/bench/wake-up.ts
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freshDatabase, printTable, stats } from './support.ts';

const MESSAGES = Number(process.env.WAKE_UP_MESSAGES ?? 2_000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HEARD_WITHIN_MS = 5_000;

/** One way of waking another connection. */
interface Way {
  name: string;
  /** Sends `payload`; resolves with the performance.now() its timing starts from. */
  send(payload: string): Promise<number>;
}

/** What a listening connection hears (`heard`), awaited one payload at a time (`next`). */
class Arrivals {
  private waiting: { payload: string; resolve: (at: number) => void } | undefined;

  heard(payload: string): void {
    const at = performance.now();
    if (this.waiting?.payload !== payload) return;
    this.waiting.resolve(at);
    this.waiting = undefined;
  }

  /** Resolves with the time `payload` arrives; fails after HEARD_WITHIN_MS. */
  next(payload: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${payload} not heard within ${HEARD_WITHIN_MS} ms`)), HEARD_WITHIN_MS);
      this.waiting = {
        payload,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }
}

/** Sends MESSAGES one at a time; returns the round trips in milliseconds. */
async function measure(way: Way, arrivals: Arrivals): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    // About what a work message carries: an account id.
    const payload = JSON.stringify({ n: i, account: randomBytes(16).toString('hex') });
    const arrived = arrivals.next(payload);
    const started = await way.send(payload);
    samples.push((await arrived) - started);
  }
  return samples;
}

function row(way: string, samples: number[]): Record<string, string | number> {
  const { count, p50, p99, max, mean } = stats(samples);
  return { way, messages: count, 'p50 ms': p50, 'p99 ms': p99, 'max ms': max, 'mean ms': mean };
}

export async function wakeUp(): Promise<Record<string, string | number>[]> {
  const channel = `wake_up_bench_${randomBytes(4).toString('hex')}`;
  const database = await freshDatabase('wakeup');
  const redisArrivals = new Arrivals();
  const pgArrivals = new Arrivals();
  const publisher = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const subscriber = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const notifier = new pg.Client({ connectionString: database.url });
  const listener = new pg.Client({ connectionString: database.url });
  try {
    await Promise.all([publisher.connect(), subscriber.connect(), notifier.connect(), listener.connect()]);
    subscriber.on('message', (_channel: string, message: string) => redisArrivals.heard(message));
    await subscriber.subscribe(channel);
    listener.on('notification', (notification) => pgArrivals.heard(notification.payload ?? ''));
    await listener.query(`listen ${channel}`);
    // What a node writes before it tells the others: a row, committed.
    await notifier.query('create table wake_up_rows (id bigserial primary key, payload text not null, created_at timestamptz not null default now())');

    const ways: [Way, Arrivals][] = [
      [{ name: 'Redis PUBLISH -> SUBSCRIBE', send: (payload) => timed(() => publisher.publish(channel, payload)) }, redisArrivals],
      [{ name: 'PostgreSQL NOTIFY -> LISTEN', send: (payload) => timed(() => notifier.query('select pg_notify($1, $2)', [channel, payload])) }, pgArrivals],
      [
        {
          name: 'PostgreSQL insert + NOTIFY in a transaction, from COMMIT',
          send: async (payload) => {
            await notifier.query('begin');
            await notifier.query('insert into wake_up_rows (payload) values ($1)', [payload]);
            await notifier.query('select pg_notify($1, $2)', [channel, payload]);
            return timed(() => notifier.query('commit'));
          },
        },
        pgArrivals,
      ],
      [
        {
          name: 'PostgreSQL insert committed, then Redis PUBLISH, from COMMIT',
          send: async (payload) => {
            await notifier.query('begin');
            await notifier.query('insert into wake_up_rows (payload) values ($1)', [payload]);
            const started = performance.now();
            await notifier.query('commit');
            await publisher.publish(channel, payload);
            return started;
          },
        },
        redisArrivals,
      ],
    ];
    const rows: Record<string, string | number>[] = [];
    for (const [way, arrivals] of ways) rows.push(row(way.name, await measure(way, arrivals)));
    return rows;
  } finally {
    publisher.disconnect();
    subscriber.disconnect();
    await Promise.allSettled([notifier.end(), listener.end()]);
    await database.drop();
  }
}

/** Runs `send`, returning when it started (performance.now()): the timing starts as the command leaves. */
async function timed(send: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await send();
  return started;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Wake-up: a message from one connection to another, ${MESSAGES} per way, one at a time (ms)`, await wakeUp());
  // Anything else running on the machine moves the tails: the load average says whether it did.
  process.stdout.write(`\nload average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
  process.exit(0);
}
