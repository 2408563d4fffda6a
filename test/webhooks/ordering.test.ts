// The events of one SMS reach a webhook in the order they happened: its next event is sent only
// once the previous one was delivered or given up, however the sender batches, however many
// senders share the database, and however the receiver answers (slowly, or 503 first). Events
// of other SMS and device events do not wait for a failing SMS event.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../src/gateway.ts';
import type { AttemptResult } from '../../src/modules/webhooks/repository.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { connectDevice, nextEvent } from '../support/devices.ts';
import { createWebhook, deliveryLog, dropWebhooks, webhookConfig } from '../support/webhooks.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { deliveryChainOf, deliveryRowsOf, smsRow } from '../support/test-data.ts';

const PHONE = '+79161234567';
const STATUSES = ['processing', 'sent', 'delivered'] as const;
const RANK: Record<string, number> = { processing: 1, sent: 2, delivered: 3 };

/** One request as the receiver saw it, in the order requests arrived. */
interface Arrival {
  deliveryId: string;
  type: string;
  smsId: string | undefined;
  status: string | undefined;
  /** 1 for the first request with this webhook-id, 2 for the next... */
  attempt: number;
  answer: number;
}

/**
 * A webhook receiver that writes down each request as it arrives, decides its answer then, and
 * answers after a delay: requests overlap, as they do at a real, slow receiver.
 */
class OrderingReceiver extends EventEmitter<{ answered: [arrival: Arrival] }> {
  readonly arrivals: Arrival[] = [];
  decide: (arrival: Omit<Arrival, 'answer'>) => number = () => 204;
  /** What the answer waits for: nothing by default. */
  answerAfter: (arrival: Arrival) => Promise<unknown> | undefined = () => undefined;
  private readonly attempts = new Map<string, number>();
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const json = JSON.parse(body);
        const deliveryId = String(request.headers['webhook-id']);
        const attempt = (this.attempts.get(deliveryId) ?? 0) + 1;
        this.attempts.set(deliveryId, attempt);
        const seen = { deliveryId, type: json.type, smsId: json.data?.sms?.id, status: json.data?.sms?.internal_status, attempt };
        const arrival = { ...seen, answer: this.decide(seen) };
        this.arrivals.push(arrival);
        void Promise.resolve(this.answerAfter(arrival)).then(() => {
          response.writeHead(arrival.answer).end();
          this.emit('answered', arrival);
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  accepted(accept: (arrival: Arrival) => boolean = () => true): Arrival[] {
    return this.arrivals.filter((arrival) => arrival.answer < 300 && accept(arrival));
  }

  /** Resolves once `done` holds, checked after every answer; fails after `timeoutMs`. */
  until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('answered', listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const listener = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.off('answered', listener);
        resolve();
      };
      this.on('answered', listener);
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The SMS whose requests did not arrive in status order, each with the statuses as they came. */
function outOfOrder(arrivals: Arrival[], smsIds: string[]): string[] {
  return smsIds.flatMap((id) => {
    const seen = arrivals.filter((arrival) => arrival.smsId === id).map((arrival) => arrival.status!);
    const ordered = seen.every((status, i) => i === 0 || RANK[seen[i - 1]!]! <= RANK[status]!);
    return ordered ? [] : [`${id}: ${seen.join(', ')}`];
  });
}

/** Every SMS has had each of its three events accepted (at least once). */
function allAccepted(receiver: OrderingReceiver, smsIds: string[]): boolean {
  const accepted = new Set(receiver.accepted().map((arrival) => `${arrival.smsId}/${arrival.status}`));
  return smsIds.every((id) => STATUSES.every((status) => accepted.has(`${id}/${status}`)));
}

/** Sends `count` SMS through the API, a few at a time; resolves with their ids. */
async function sendMany(tenant: Tenant, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const replies = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) => tenant.api.post('/sms', { phone: PHONE, message: `ordered ${i + j}` })),
    );
    for (const reply of replies) {
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      ids.push(reply.body.id);
    }
  }
  return ids;
}

/**
 * Counts the deliveries of a webhook that the senders of `gateways` record as delivered; `done`
 * resolves once `count` distinct ones are. `bySender`: how many each sender recorded.
 */
function recordedDelivered(gateways: Gateway[], webhookId: string, count: number, timeoutMs: number) {
  const ids = new Set<string>();
  const bySender = gateways.map(() => 0);
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${ids.size} of ${count} deliveries recorded as delivered within ${timeoutMs} ms`)), timeoutMs);
    gateways.forEach((gateway, i) => {
      gateway.services.webhookSender.on('recorded', (results) => {
        for (const result of results) {
          if (result.webhookId !== webhookId || result.status !== 'delivered') continue;
          ids.add(result.id);
          bySender[i]!++;
        }
        if (ids.size < count) return;
        clearTimeout(timer);
        resolve();
      });
    });
  });
  return { done, bySender };
}

/**
 * Why a wait for the events ran out, said from the rows: each SMS still missing an accepted
 * event (or, all accepted, each delivery not recorded as delivered) with its status and its
 * deliveries to the webhook, in order. "head" is the one delivery of the chain that may be sent:
 * a pending chain with none never moves; one whose head is leased waits for an attempt's outcome.
 */
async function whatIsMissing(gateway: Gateway, receiver: OrderingReceiver, webhookId: string, smsIds: string[]): Promise<string> {
  const accepted = new Set(receiver.accepted().map((arrival) => `${arrival.smsId}/${arrival.status}`));
  let missing = smsIds.filter((id) => STATUSES.some((status) => !accepted.has(`${id}/${status}`)));
  if (missing.length === 0) {
    missing = [...new Set((await deliveryRowsOf(gateway, webhookId)).filter((row) => row.status !== 'delivered').map((row) => row.ordering_key as string))];
  }
  const lines = [`${missing.length} SMS still waiting, the first ones:`];
  for (const id of missing.slice(0, 5)) {
    const sms = await smsRow(gateway, id);
    const rows = await deliveryChainOf(gateway, webhookId, id);
    const deliveries = rows.map((row) =>
      row.status === 'pending'
        ? `pending ${row.ready ? 'head' : 'waiting'} (attempts ${row.attempts}, due in ${row.due_in} s${row.leased_for !== null && row.leased_for > 0 ? `, leased for ${row.leased_for} s` : ''}${row.last_error ? `, last: ${row.last_error}` : ''})`
        : row.status,
    );
    const seen = STATUSES.filter((status) => accepted.has(`${id}/${status}`));
    lines.push(`  ${id}: SMS ${sms?.status ?? 'not found'}; accepted [${seen.join(', ')}]; deliveries [${deliveries.join('; ') || 'none'}]`);
  }
  return lines.join('\n');
}

/**
 * 100 SMS go processing -> sent -> delivered through ten phones that report at once (ten SMS
 * each: within a phone's default rate limit), while the
 * receiver answers after 0-8 ms and fails a third of first attempts with 503. Checks that each
 * SMS's requests arrived in status order and that every event was accepted.
 */
async function manySmsInOrder(gateways: Gateway[], tenant: Tenant, receiver: OrderingReceiver, devices: SimulatedDevice[]): Promise<number[]> {
  const SMS_COUNT = 100;
  const gateway = gateways[0]!;
  receiver.answerAfter = () => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 9)));
  receiver.decide = (arrival) => (arrival.attempt === 1 && Math.random() < 1 / 3 ? 503 : 204);
  const { webhook } = await createWebhook(tenant, receiver.url, ['sms.status_changed']);
  const recorded = recordedDelivered(gateways, webhook.id, SMS_COUNT * 3, 60_000);
  for (let i = 0; i < 10; i++) devices.push(await connectDevice(gateway, tenant));

  const ids = await sendMany(tenant, SMS_COUNT);
  try {
    await receiver.until(`all ${SMS_COUNT * 3} events accepted`, () => allAccepted(receiver, ids), 60_000);
    // The receiver answers before the gateway writes the outcome down: await the writing too.
    await recorded.done;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${await whatIsMissing(gateway, receiver, webhook.id, ids)}`);
  }

  const late = outOfOrder(receiver.arrivals, ids);
  expect(late, `${late.length} of ${SMS_COUNT} SMS had their events arrive out of order, e.g.\n${late.slice(0, 5).join('\n')}`).to.deep.equal([]);
  expect(receiver.arrivals.filter((arrival) => arrival.answer === 503), 'some first attempts failed and were retried').not.to.be.empty;

  // Each event is a delivery row; each was accepted (de-duplicated by webhook-id), none is extra.
  const rows = await deliveryRowsOf(gateway, webhook.id);
  expect(rows).to.have.length(SMS_COUNT * 3);
  const accepted = new Set(receiver.accepted().map((arrival) => arrival.deliveryId));
  expect(rows.filter((row) => !accepted.has(row.id)), 'deliveries never accepted').to.deep.equal([]);
  expect(accepted.size).to.equal(SMS_COUNT * 3);
  return recorded.bySender;
}

describe('webhooks: the events of one SMS arrive in order', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig({ disableAfterMs: 1_000_000_000 }) } });
  let receiver: OrderingReceiver;
  /** The phones manySmsInOrder connects. */
  let devices: SimulatedDevice[] = [];

  beforeEach(async () => {
    receiver = fx.track(new OrderingReceiver());
    await receiver.start();
  });
  afterEach(async () => {
    await Promise.all(devices.map((device) => device.stop()));
    devices = [];
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  it('when 100 SMS go processing -> sent -> delivered at once and the receiver is slow and fails some first attempts, then each SMS has its events arrive in status order, every one of them', async function () {
    this.timeout(90_000);
    await manySmsInOrder([fx.gateway], fx.tenant, receiver, devices);
  });

  it('when the first event of an SMS keeps failing, then its later events wait for it, while other SMS and device events go out', async function () {
    this.timeout(30_000);
    let hold = true;
    let first: string | undefined;
    receiver.decide = (arrival) => {
      if (arrival.type === 'sms.status_changed') first ??= arrival.smsId;
      return hold && arrival.smsId === first && arrival.status === 'processing' ? 503 : 204;
    };
    await createWebhook(fx.tenant, receiver.url, ['sms.status_changed', 'device.online']);
    const phone = await fx.connectDevice();

    const reported = nextEvent(phone, 'report', (_id, status) => status === 'delivered', 10_000);
    const [sms] = await sendMany(fx.tenant, 1);
    await reported;
    // The phone's last report can complete before the first event's attempt reaches the receiver.
    await receiver.until('the first attempt of the SMS', () => first !== undefined);
    expect(first).to.equal(sms);
    // Every event of the SMS is written now. Another SMS, and another phone coming online:
    const [second] = await sendMany(fx.tenant, 1);
    await receiver.until('the second SMS delivered', () => allAccepted(receiver, [second!]));
    await fx.connectDevice();
    await receiver.until('device.online of the second phone', () => receiver.accepted((a) => a.type === 'device.online').length === 2);
    // One more failed attempt of the first event, made after its later events were written.
    const failedSoFar = receiver.arrivals.filter((arrival) => arrival.smsId === first).length;
    await receiver.until('another failed attempt', () => receiver.arrivals.filter((arrival) => arrival.smsId === first).length > failedSoFar);

    expect(receiver.arrivals.filter((arrival) => arrival.smsId === first).map((arrival) => arrival.status)).to.satisfy(
      (statuses: string[]) => statuses.length >= 2 && statuses.every((status) => status === 'processing'),
      'only the failing first event was sent',
    );

    hold = false;
    await receiver.until('the first SMS delivered', () => allAccepted(receiver, [first!]));
    expect(outOfOrder(receiver.arrivals, [first!, second!])).to.deep.equal([]);
    expect(receiver.accepted((arrival) => arrival.smsId === first).map((arrival) => arrival.status)).to.deep.equal([...STATUSES]);
  });
});

describe('webhooks: the events behind a long-failing SMS event', () => {
  let tenant: Tenant;
  let receiver: OrderingReceiver;
  let devices: SimulatedDevice[] = [];
  const gateways: Gateway[] = [];

  beforeEach(async () => {
    receiver = new OrderingReceiver();
    await receiver.start();
  });
  afterEach(async () => {
    await Promise.all(devices.map((device) => device.stop()));
    devices = [];
    await receiver.stop();
  });
  after(async () => {
    for (const gateway of gateways) await gateway.stop();
  });

  /** A gateway whose first retry comes 30-60 s after a failure: far beyond these tests. */
  async function slowRetries(retryForMs?: number): Promise<Gateway> {
    const gateway = await startGateway({ webhooks: webhookConfig({ retryBaseMs: 60_000, ...(retryForMs ? { retryForMs } : {}) }) });
    gateways.push(gateway);
    tenant = await createTenant(gateway);
    return gateway;
  }

  /**
   * Sends one SMS; the receiver fails the first attempt of its processing event, answering only
   * once the phone has reported delivered (so the later events are written while it fails).
   * Resolves once that failure is recorded.
   */
  async function smsWithFailingHead(gateway: Gateway): Promise<{ smsId: string; webhookId: string }> {
    receiver.decide = (arrival) => (arrival.attempt === 1 && arrival.status === 'processing' ? 503 : 204);
    const { webhook } = await createWebhook(tenant, receiver.url, ['sms.status_changed']);
    const phone = await connectDevice(gateway, tenant);
    devices.push(phone);
    const reported = nextEvent(phone, 'report', (_id, status) => status === 'delivered', 10_000);
    receiver.answerAfter = (arrival) => (arrival.answer === 503 ? reported : undefined);
    const failure = nextEvent(gateway.services.webhookSender, 'recorded', (results: AttemptResult[]) => results.some((result) => result.webhookId === webhook.id), 10_000);
    const [smsId] = await sendMany(tenant, 1);
    await failure;
    expect(receiver.arrivals.map((arrival) => [arrival.smsId, arrival.status, arrival.answer])).to.deep.equal([[smsId, 'processing', 503]]);
    return { smsId: smsId!, webhookId: webhook.id };
  }

  it('when the waiting first event is retried by hand and delivered, then the later events follow at once, not at their next scheduled attempt', async function () {
    this.timeout(30_000);
    const gateway = await slowRetries();
    const { smsId, webhookId } = await smsWithFailingHead(gateway);
    const log = await deliveryLog(tenant, webhookId);
    const head = log.find((delivery) => delivery.status === 'pending' && delivery.attempts === 1)!;
    expect(Date.parse(head.next_attempt_at), 'the next attempt is at least 30 s away').to.be.above(Date.now() + 20_000);

    const retried = await tenant.api.post(`/webhooks/${webhookId}/deliveries/${head.id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
    await receiver.until('all three events accepted', () => allAccepted(receiver, [smsId]), 10_000);
    expect(receiver.arrivals.map((arrival) => `${arrival.status}:${arrival.answer}`)).to.deep.equal(['processing:503', 'processing:204', 'sent:204', 'delivered:204']);
  });

  it('when the first event is given up, then the later events go out', async function () {
    this.timeout(30_000);
    // Retried for a second only, and the first retry would be 30 s away: the first failure gives up.
    const gateway = await slowRetries(1_000);
    let delivered = 0;
    const recordedDelivered = nextEvent(
      gateway.services.webhookSender,
      'recorded',
      (results: AttemptResult[]) => (delivered += results.filter((result) => result.status === 'delivered').length) >= 2,
      10_000,
    );
    const { smsId, webhookId } = await smsWithFailingHead(gateway);
    await recordedDelivered;
    expect(receiver.accepted((arrival) => arrival.smsId === smsId)).to.have.length(2);
    expect(receiver.arrivals.map((arrival) => `${arrival.status}:${arrival.answer}`)).to.deep.equal(['processing:503', 'sent:204', 'delivered:204']);
    const log = await deliveryLog(tenant, webhookId);
    expect(log.map((delivery) => delivery.status).sort()).to.deep.equal(['delivered', 'delivered', 'failed']);
    await dropWebhooks(gateway, [tenant.accountId]);
  });
});

// Two gateways on one PostgreSQL database share the outbox: their senders claim from the same rows.
// (PGlite is one process's embedded database.)
describe('webhooks: the events of one SMS arrive in order with two gateways sending', () => {
  onlyOnPostgres();
  // Both must open the signing secrets the other sealed.
  const webhooks = webhookConfig({ disableAfterMs: 1_000_000_000, secretKey: randomBytes(32) });
  const fx = useGateway({ config: { webhooks }, tenant: 'once' });
  let other: Gateway;
  let receiver: OrderingReceiver;
  const devices: SimulatedDevice[] = [];

  before(async () => {
    other = await fx.startGateway({ webhooks });
    // Events are written by the gateway the phones talk to, which wakes its own sender: wake the
    // other one with it, so that both claim all along (not only at the other's 1 s sweep).
    fx.gateway.services.webhookSender.on('recorded', () => other.services.webhookSender.wake());
    receiver = fx.track(new OrderingReceiver());
    await receiver.start();
  });
  after(async () => {
    // Skipped (PGlite): nothing was started.
    if (!other) return;
    await Promise.all(devices.map((device) => device.stop()));
    await dropWebhooks(fx.gateway, [fx.tenant.accountId]);
  });

  it('when 100 SMS go processing -> sent -> delivered at once and both senders claim them, then each SMS has its events arrive in status order, every one of them', async function () {
    this.timeout(90_000);
    const bySender = await manySmsInOrder([fx.gateway, other], fx.tenant, receiver, devices);
    expect(bySender.map((delivered) => delivered > 0), `both senders delivered some (${bySender.join(' and ')})`).to.deep.equal([true, true]);
  });
});
