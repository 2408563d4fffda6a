// Drill: a webhook receiver is down for 10 minutes under 20 SMS/s, then comes back.
//
// The incident this guards against: counting failed attempts, a webhook was disabled one second into a
// receiver outage, the events of the disabled time were never written, and only 55 of 280 SMS
// had their "delivered" event once the receiver returned. Here an in-process gateway on a fresh
// database of the local PostgreSQL (dropped at the end) sends SMS posted through the HTTP API at
// a steady rate to simulated phones (src/simulator), which report processing, sent and
// delivered; a webhook subscribed to sms.status_changed points at a real HTTP receiver on
// 127.0.0.1. The receiver is down for the outage: the first half its port refuses connections,
// the second half it answers 503. Then it answers 204 again. It passes when the webhook was never
// disabled and, within the drain bound, every SMS's three events arrived, each accepted exactly
// once (by webhook-id), with a valid Standard Webhooks signature, in status order.
//
//   npx tsx scripts/drills/webhook-outage.ts
//   WEBHOOK_OUTAGE_SECONDS=30 npx tsx scripts/drills/webhook-outage.ts   (quick)
//
// Settings (environment): WEBHOOK_OUTAGE_SECONDS (600), WEBHOOK_OUTAGE_RATE (SMS a second, 20),
// WEBHOOK_OUTAGE_WARMUP_SECONDS (load before the outage and after it, 10),
// WEBHOOK_OUTAGE_DRAIN_SECONDS (bound after the receiver's return, 300), WEBHOOK_OUTAGE_PHONES
// (10), DRILL_PG_URL (the PostgreSQL maintenance database, postgres://postgres@127.0.0.1:5432/postgres).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { updateDeviceSettings } from '../../src/use-cases/update-device-settings.ts';
import { Receiver, type Received } from '../../test/support/receiver.ts';
import { readNumber, sleep, startSmsLoad } from './support/drill-kit.ts';
import { freshDatabase } from './support/fresh-database.ts';

const NAME = 'webhook-outage';
const OUTAGE_S = readNumber(NAME, 'WEBHOOK_OUTAGE_SECONDS', 600, 2, 3600);
const RATE = readNumber(NAME, 'WEBHOOK_OUTAGE_RATE', 20, 1, 500);
const WARMUP_S = readNumber(NAME, 'WEBHOOK_OUTAGE_WARMUP_SECONDS', 10, 1, 300);
const DRAIN_S = readNumber(NAME, 'WEBHOOK_OUTAGE_DRAIN_SECONDS', 300, 10, 3600);
const PHONES = readNumber(NAME, 'WEBHOOK_OUTAGE_PHONES', 10, 1, 200);
const STATUS_ORDER = ['processing', 'sent', 'delivered'];
const POST_TIMEOUT_MS = 10_000;

interface SmsEvent {
  type: string;
  data: { sms: { id: string; internal_status: string } };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The gateway's warning and error lines, counted by message (printed at the end, not as they come). */
class LogTally extends Writable {
  readonly counts = new Map<string, number>();
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString().split('\n')) {
      if (!text.trim()) continue;
      try {
        const line = JSON.parse(text) as { msg: string };
        this.counts.set(line.msg, (this.counts.get(line.msg) ?? 0) + 1);
      } catch {
        // not a log line
      }
    }
    done();
  }
}


async function main(): Promise<{ pass: boolean; summary: string }> {
  const database = await freshDatabase('webhooks');
  const receiver = new Receiver();
  let gateway: Gateway | undefined;
  let fleet: Fleet | undefined;
  try {
    await receiver.start();
    const port = receiver.port;
    // Everything as configured by default (retries, WEBHOOK_DISABLE_AFTER), except that the
    // receiver on 127.0.0.1 may be reached.
    const defaults = loadConfig({});
    const config: Config = {
      ...defaults,
      port: 0,
      host: '127.0.0.1',
      mqttPort: 0,
      databaseUrl: database.url,
      dataDir: ':memory:',
      logLevel: 'warn',
      webhooks: { ...defaults.webhooks, allowedHosts: ['127.0.0.1'] },
    };
    const tally = new LogTally();
    gateway = await Gateway.start(config, createLogger(config.logLevel, tally));
    const account = await gateway.services.accounts.create(`webhook-outage-drill-${randomBytes(3).toString('hex')}`);
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    const apiUrl = `http://127.0.0.1:${gateway.httpPort}/api/ext/v1`;
    const created = await fetch(`${apiUrl}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['sms.status_changed'] }),
    });
    if (created.status !== 201) throw new Error(`could not create the webhook (${created.status}): ${await created.text()}`);
    const { webhook, secret } = (await created.json()) as { webhook: { id: string }; secret: string };

    fleet = new Fleet({
      count: PHONES,
      apiUrl: `http://127.0.0.1:${gateway.httpPort}`,
      apiKey: key,
      brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
      device: { delays: { processing: 20, sent: 50, delivered: 50 } },
    });
    await fleet.start();
    // No pacing: the default limits (20 a minute a phone) are below the drill's rate.
    for (const device of fleet.devices) {
      await updateDeviceSettings(gateway.services, gateway.services.db, account.id, device.id, { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } });
    }
    // Signatures are checked as each request arrives, as a receiver does: Standard Webhooks
    // refuses a timestamp more than 5 minutes off, and the drill ends long after the first ones.
    const verifier = new Webhook(secret);
    const verified = new Map<Received, SmsEvent>();
    let badSignatures = 0;
    receiver.on('request', (request) => {
      if (request.status >= 300) return;
      try {
        verified.set(request, verifier.verify(request.body, request.headers as Record<string, string>) as SmsEvent);
      } catch {
        badSignatures++;
      }
    });
    let disabledEvents = 0;
    gateway.services.webhookSender.on('disabled', (webhooks) => (disabledEvents += webhooks.filter((w) => w.id === webhook.id).length));
    console.log(`gateway on 127.0.0.1:${gateway.httpPort} (MQTT ${gateway.mqttPort}), fresh PostgreSQL database, ${PHONES} simulated phones`);
    console.log(`receiver on 127.0.0.1:${port}; WEBHOOK_DISABLE_AFTER ${config.webhooks.disableAfterMs / 1000} s, WEBHOOK_RETRY_FOR ${config.webhooks.retryForMs / 1000} s`);
    console.log(`load ${RATE} SMS/s: ${WARMUP_S} s, receiver down ${OUTAGE_S} s (refusing connections, then answering 503), ${WARMUP_S} s more`);

    const load = startSmsLoad({ apiUrl, key, rate: RATE, timeoutMs: POST_TIMEOUT_MS });
    await sleep(WARMUP_S * 1000);
    const downAt = Date.now();
    await receiver.stop();
    console.log(`t=0.0 s  receiver down: connections refused (${load.accepted.length} SMS accepted so far)`);
    await sleep((OUTAGE_S * 1000) / 2);
    receiver.respond = () => 503;
    await receiver.start(port);
    console.log(`t=${seconds(Date.now() - downAt)} s  receiver answering 503`);
    await sleep(Math.max(0, OUTAGE_S * 1000 - (Date.now() - downAt)));
    const db = gateway.services.db;
    // The backlog: what waits when the receiver returns. Its drain time is until the last of it is accepted.
    const waiting = new Set(((await db('webhook_deliveries').where({ webhook_id: webhook.id, status: 'pending' }).select('id')) as { id: string }[]).map((row) => row.id));
    const backlog = waiting.size;
    let backlogDrainedAt: number | undefined;
    receiver.on('request', (request) => {
      if (request.status < 300 && waiting.delete(String(request.headers['webhook-id'])) && waiting.size === 0) backlogDrainedAt = Date.now();
    });
    receiver.respond = () => 204;
    const upAt = Date.now();
    console.log(`t=${seconds(upAt - downAt)} s  receiver up again; ${backlog} deliveries waiting`);
    await sleep(WARMUP_S * 1000);
    await load.stop();

    // Every SMS's three events accepted, within the bound after the receiver's return.
    const expected = load.accepted.length * STATUS_ORDER.length;
    const deadline = upAt + DRAIN_S * 1000;
    const acceptedIds = () => new Set(receiver.received.filter((r) => r.status < 300).map((r) => String(r.headers['webhook-id'])));
    let drainedAt: number | undefined;
    while (Date.now() < deadline) {
      if (acceptedIds().size >= expected) {
        drainedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    // The last outcomes are recorded just after the receiver answered them.
    await sleep(1000);

    const accepted = receiver.received.filter((r) => r.status < 300);
    const timesById = new Map<string, number>();
    for (const request of accepted) {
      const id = String(request.headers['webhook-id']);
      timesById.set(id, (timesById.get(id) ?? 0) + 1);
    }
    const duplicates = [...timesById.values()].filter((n) => n > 1).length;
    const statusesBySms = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const request of accepted) {
      const event = verified.get(request);
      if (!event) continue;
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) continue;
      seen.add(id);
      const statuses = statusesBySms.get(event.data.sms.id) ?? [];
      statuses.push(event.data.sms.internal_status);
      statusesBySms.set(event.data.sms.id, statuses);
    }
    const incomplete = load.accepted.filter((id) => (statusesBySms.get(id) ?? []).length !== STATUS_ORDER.length).length;
    const outOfOrder = load.accepted.filter((id) => {
      const statuses = statusesBySms.get(id);
      return statuses?.length === STATUS_ORDER.length && statuses.join() !== STATUS_ORDER.join();
    }).length;
    const rows = (await db('webhook_deliveries').where({ webhook_id: webhook.id }).select('status').count({ n: '*' }).sum({ attempts: 'attempts' }).groupBy('status')) as {
      status: string;
      n: number;
      attempts: number;
    }[];
    const [state] = (await db('webhooks').where({ id: webhook.id }).select('enabled', 'disabled_reason')) as { enabled: boolean; disabled_reason: string | null }[];
    const attempts = rows.reduce((sum, row) => sum + Number(row.attempts), 0);
    const failedAttempts = receiver.received.length - accepted.length;

    console.log(`SMS accepted ${load.accepted.length} (refused ${load.refusedTotal()}); events expected ${expected} (${STATUS_ORDER.join(', ')} of each)`);
    console.log(`receiver: ${receiver.received.length} requests (${failedAttempts} answered 503), ${accepted.length} accepted, ${timesById.size} distinct webhook-ids`);
    console.log(`attempts recorded ${attempts} (the refused connections among them); delivery rows: ${rows.map((row) => `${row.status} ${row.n}`).join(', ')}`);
    console.log(`duplicates accepted ${duplicates}; bad signatures ${badSignatures}; SMS missing an event ${incomplete}; SMS with events out of order ${outOfOrder}`);
    console.log(`gateway warning/error log lines: ${[...tally.counts.values()].reduce((a, b) => a + b, 0)}`);
    for (const [msg, n] of [...tally.counts].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(6)}  ${msg}`);
    console.log(`webhook ${state?.enabled ? 'enabled' : `disabled (${state?.disabled_reason})`} throughout: "disabled" emitted ${disabledEvents} times`);
    console.log(
      backlogDrainedAt
        ? `backlog of ${backlog} deliveries drained ${seconds(backlogDrainedAt - upAt)} s after the receiver came back`
        : `${waiting.size} of the backlog of ${backlog} never accepted`,
    );
    console.log(
      drainedAt
        ? `every event in ${seconds(drainedAt - upAt)} s after the receiver came back (load went on for ${WARMUP_S} s of it; bound ${DRAIN_S} s)`
        : `${expected - acceptedIds().size} events still missing ${DRAIN_S} s after the receiver came back`,
    );

    const problems: string[] = [];
    if (load.accepted.length === 0) problems.push('no SMS accepted at all');
    if (!backlogDrainedAt) problems.push(`${waiting.size} of the backlog of ${backlog} never accepted`);
    if (!drainedAt) problems.push(`${expected - acceptedIds().size} of ${expected} events not delivered within ${DRAIN_S} s of the receiver's return`);
    if (duplicates > 0) problems.push(`${duplicates} events accepted more than once`);
    if (badSignatures > 0) problems.push(`${badSignatures} requests with a bad signature`);
    if (incomplete > 0) problems.push(`${incomplete} SMS missing an event`);
    if (outOfOrder > 0) problems.push(`${outOfOrder} SMS with events out of order`);
    if (!state?.enabled || disabledEvents > 0) problems.push('the webhook was disabled');
    const figures = `${load.accepted.length} SMS, ${expected} events each delivered once with a valid signature after a ${OUTAGE_S} s outage; backlog of ${backlog} drained in ${backlogDrainedAt ? seconds(backlogDrainedAt - upAt) : '-'} s`;
    return problems.length === 0 ? { pass: true, summary: figures } : { pass: false, summary: problems.join('; ') };
  } finally {
    await fleet?.stop().catch(() => {});
    await gateway?.stop().catch(() => {});
    await receiver.stop().catch(() => {});
    await database.drop().catch((error: unknown) => console.log(`could not drop the drill database: ${(error as Error).message}`));
  }
}

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
