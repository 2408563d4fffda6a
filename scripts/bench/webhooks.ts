// Webhook delivery rate: WEBHOOK_EVENTS deliveries (default 20,000) wait in the outbox for a
// webhook whose receiver listens on 127.0.0.1; the gateway starts and sends them all. Measures
// deliveries per second until every row is marked delivered. Baseline in the same run: the same
// receiver driven by a plain undici client with the same concurrency (HTTP POSTs alone: no
// database, no signing). Target: at least 2,000 delivered webhooks per second.
import knexModule from 'knex';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { Receiver } from '../../test/support/receiver.ts';
import { freshDatabase, prepareTenant, printTable, ratio, spawnGateway } from './support.ts';

const EVENTS = Number(process.env.WEBHOOK_EVENTS ?? 20_000);
const CONCURRENCY = 128;

export async function webhookThroughput(): Promise<Record<string, string | number>[]> {
  const receiver = new Receiver();
  await receiver.start();
  const body = JSON.stringify({ id: randomUUID(), type: 'sms.status_changed', timestamp: new Date().toISOString(), data: { sms: { status: 'delivered' } } });
  const database = await freshDatabase('webhooks');
  const tenant = await prepareTenant(database.url, 0);
  const db = knexModule.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  try {
    const baselineSeconds = await plainPosts(receiver.url, body);
    receiver.received.length = 0;

    const gateway = await spawnGateway(database.url, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    let started = 0;
    let seconds = 0;
    try {
      const api = `http://127.0.0.1:${gateway.port}/api/ext/v1`;
      const created = await request(`${api}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['sms.status_changed'] }),
      });
      const { webhook } = (await created.body.json()) as { webhook: { id: string } };
      // Without an ordering key each is claimable as written (ready), as the outbox writes such events.
      await db.raw(
        `insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, body, retry_until, next_attempt_at, ready)
         select gen_random_uuid(), ?, ?, gen_random_uuid(), 'sms.status_changed', ?, now() + interval '1 day', now() + interval '1 second', true
           from generate_series(1, ?)`,
        [webhook.id, tenant.accountId, body, EVENTS],
      );
      // The rows fall due a second after they are written: time from then until all are recorded.
      started = performance.now() + 1000;
      await receiver.waitFor(EVENTS, () => true, 120_000);
      for (;;) {
        const pending = await db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }).first();
        if (Number(pending?.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      seconds = (performance.now() - started) / 1000;
    } finally {
      await gateway.stop();
    }
    const delivered = await db('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' }).first();
    return [
      { scenario: `baseline: plain undici POSTs, ${CONCURRENCY} at a time`, deliveries: EVENTS, seconds: baselineSeconds.toFixed(1), 'per second': Math.round(EVENTS / baselineSeconds), 'ratio to baseline': '1.00' },
      {
        scenario: 'gateway: outbox -> signed POST -> recorded',
        deliveries: Number(delivered?.n),
        seconds: seconds.toFixed(1),
        'per second': Math.round(EVENTS / seconds),
        'ratio to baseline': ratio(EVENTS / seconds, EVENTS / baselineSeconds),
      },
    ];
  } finally {
    await db.destroy();
    await receiver.stop();
    await database.drop();
  }
}

async function plainPosts(url: string, body: string): Promise<number> {
  const agent = new Agent({ connections: 32 });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < EVENTS) {
      const response = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
      await response.body.dump();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return seconds;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(`Webhook delivery (target: >= 2,000 delivered per second)`, await webhookThroughput());
  // Whatever a killed phone or a stopped child left open, a benchmark ends when it is done.
  process.exit(0);
}
