// Once only: with several nodes on one PostgreSQL, every webhook event is sent once and every
// status report is applied once. All nodes' senders claim from one outbox, and whichever node a
// phone talks to writes its events there; a phone that moves to another node sends again the
// reports it is not sure arrived. Three nodes here: A and B of the cluster fixture, and C.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import type { AttemptResult } from '../../src/modules/webhooks/repository.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import type { Received } from '../support/receiver.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { ApiClient } from '../support/tenant.ts';
import { createWebhook, verifies, webhookConfig } from '../support/webhooks.ts';
import { useCluster, within } from './cluster-fixture.ts';
import { deliveryRowsOf } from '../support/test-data.ts';

const PHONE = '+79161234567';
/** The reports of each SMS, one after the other: each is one sms.status_changed event. */
const STATUSES = ['processing', 'sent', 'delivered'] as const;
const SMS_PER_PHONE = 40;
/** Phones that connect and leave on each node: one device.online and one device.offline each. */
const VISITORS_PER_NODE = 4;

describe('once only across nodes', function () {
  // One WEBHOOK_SECRET_KEY for every node: each must open the signing secrets the others sealed.
  const cluster = useCluster({ webhooks: webhookConfig({ secretKey: randomBytes(32) }) });
  const { fx } = cluster;
  let c: Gateway;

  before(async function () {
    this.timeout(60_000);
    c = await fx.startGateway({ ...cluster.shared, nodeId: `node-c-${randomBytes(4).toString('hex')}` });
  });

  function apiOn(node: Gateway): ApiClient {
    return new ApiClient(`http://127.0.0.1:${node.httpPort}/api/ext/v1`, fx.tenant.key);
  }

  /** How many deliveries of the webhook each node's sender recorded as delivered (listening until the test ends). */
  function deliveredBy(nodes: Gateway[], webhookId: string): number[] {
    const counts = nodes.map(() => 0);
    nodes.forEach((node, i) => {
      const listener = (results: AttemptResult[]) => {
        counts[i]! += results.filter((result) => result.webhookId === webhookId && result.status === 'delivered').length;
      };
      node.services.webhookSender.on('recorded', listener);
      fx.onCleanup(() => node.services.webhookSender.off('recorded', listener));
    });
    return counts;
  }

  /** A phone that connects to `node` and leaves again (DISCONNECT). */
  async function visit(node: Gateway): Promise<string> {
    const { device, token } = await fx.registerDevice('visitor');
    const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${node.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 0 }));
    await phone.connect();
    await phone.stop();
    return device.id;
  }

  /** A report on a connection that may be closed under it: done when acknowledged, or when the connection closes. */
  function unlessClosed(phone: TaskPhone, smsId: string, status: string): Promise<void> {
    if (!phone.client.connected) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        phone.client.off('close', done);
        resolve();
      };
      phone.client.once('close', done);
      phone.report(smsId, status).then(done, done);
    });
  }

  /** Resolves once every delivery of the webhook is written down as delivered; returns them. */
  async function allDelivered(webhookId: string, count: number) {
    const rows = () => deliveryRowsOf(fx, webhookId);
    await within(20_000, async () => {
      const written = await rows();
      return written.length >= count && written.every((row) => row.status === 'delivered');
    });
    return rows();
  }

  it('when phones on three nodes report a few hundred status changes and others come and go, then every event reaches the webhook exactly once', async function () {
    this.timeout(60_000);
    const nodes = [fx.gateway, cluster.b, c];
    const receiver = await fx.receiver();
    const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed', 'device.online', 'device.offline']);
    const bySender = deliveredBy(nodes, webhook.id);

    // One phone on each node (each connection is one device.online); the SMS for each are created
    // through the next node, so a node hands out work it did not take in.
    const phones: TaskPhone[] = [];
    for (const node of nodes) phones.push(fx.track(await TaskPhone.connect(node, fx.tenant, UNPACED)));
    const smsIds: string[] = [];
    for (const [i, phone] of phones.entries()) {
      const messages = Array.from({ length: SMS_PER_PHONE }, (_, n) => ({ phone: PHONE, message: `once ${i}-${n}`, device_id: phone.id }));
      const created = await apiOn(nodes[(i + 1) % nodes.length]!).post('/sms/bulk', { messages });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      smsIds.push(...created.body.data.map((sms: { id: string }) => sms.id));
    }
    await Promise.all(phones.map((phone) => phone.until(SMS_PER_PHONE, 10_000)));

    // All at once: every phone walks its tasks through the statuses while visitors come and go
    // on every node, so that all three nodes write events and wake their senders together.
    const reporting = phones.map(async (phone) => {
      for (const status of STATUSES) await Promise.all(phone.tasks.map((task) => phone.report(task.sms_id, status)));
    });
    const visiting = nodes.map(async (node) => {
      const visitors: string[] = [];
      for (let i = 0; i < VISITORS_PER_NODE; i++) visitors.push(await visit(node));
      return visitors;
    });
    await Promise.all(reporting);
    const visitors = (await Promise.all(visiting)).flat();

    const expected = smsIds.length * STATUSES.length + phones.length + visitors.length * 2;
    const rows = await allDelivered(webhook.id, expected);
    expect(rows, 'one delivery per event').to.have.length(expected);

    const requestsById = new Map<string, Received[]>();
    for (const request of receiver.received) {
      const id = String(request.headers['webhook-id']);
      requestsById.set(id, [...(requestsById.get(id) ?? []), request]);
    }
    const repeated = [...requestsById].filter(([, requests]) => requests.length > 1).map(([id, requests]) => `${id} x${requests.length}`);
    expect(repeated, 'webhook-ids received more than once').to.deep.equal([]);
    expect(rows.filter((row) => !requestsById.has(row.id)).map((row) => row.id), 'deliveries never received').to.deep.equal([]);
    expect(receiver.received, 'one request per event').to.have.length(expected);
    expect(rows.filter((row) => row.attempts !== 1).map((row) => `${row.id}: ${row.attempts} attempts`), 'claimed once each').to.deep.equal([]);
    expect(new Set(receiver.received.map((request) => request.json.id)), 'event ids').to.deep.equal(new Set(rows.map((row) => row.event_id)));
    expect(receiver.received.filter((request) => !verifies(secret, request)), 'every request signed with the webhook secret, whichever node sent it').to.deep.equal([]);

    const statusesOf = new Map<string, string[]>();
    const presenceOf = new Map<string, string[]>();
    for (const { json } of receiver.received) {
      if (json.type === 'sms.status_changed') statusesOf.set(json.data.sms.id, [...(statusesOf.get(json.data.sms.id) ?? []), json.data.sms.internal_status]);
      else presenceOf.set(json.data.device.id, [...(presenceOf.get(json.data.device.id) ?? []), json.type]);
    }
    expect(smsIds.filter((id) => JSON.stringify(statusesOf.get(id)?.sort()) !== JSON.stringify([...STATUSES].sort())), 'SMS without exactly one event per status').to.deep.equal([]);
    expect(visitors.filter((id) => JSON.stringify(presenceOf.get(id)?.sort()) !== '["device.offline","device.online"]'), 'visitors without exactly one online and one offline').to.deep.equal([]);
    expect(phones.filter((phone) => JSON.stringify(presenceOf.get(phone.id)) !== '["device.online"]').map((phone) => phone.id), 'phones without exactly one online').to.deep.equal([]);
    expect(bySender.map((count) => count > 0), `every node's sender delivered some (${bySender.join(', ')})`).to.deep.equal([true, true, true]);
  });

  it('when a phone sends the same reports twice to node A and, after moving, again to node B, then each status is applied once', async function () {
    this.timeout(20_000);
    const receiver = await fx.receiver();
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const onA = fx.track(await TaskPhone.connect(fx.gateway, fx.tenant, UNPACED));
    const created = await cluster.onB(fx.tenant).post('/sms', { phone: PHONE, message: 'reported twice', device_id: onA.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const smsId: string = created.body.id;
    await onA.until(1);

    for (const status of ['processing', 'processing', 'sent', 'sent'] as const) await onA.report(smsId, status);
    // Gone without DISCONNECT: the phone cannot know which of its reports arrived, and sends
    // them again wherever it connects next.
    onA.kill();
    await within(5_000, async () => !fx.gateway.channel.isReady(onA.id));
    const onB = fx.track(await TaskPhone.reconnect(cluster.b, onA));
    for (const status of ['processing', 'sent', 'sent', 'delivered', 'delivered'] as const) await onB.report(smsId, status);

    for (const [node, api] of [['A', fx.tenant.api], ['B', cluster.onB(fx.tenant)]] as const) {
      const read = await api.get(`/sms/${smsId}`);
      expect(read.status).to.equal(200);
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status), `history read on node ${node}`).to.deep.equal([
        'pending',
        'processing',
        'sent',
        'delivered',
      ]);
    }
    // The outbox rows are written in the transactions of the reports, all committed by now.
    const rows = await allDelivered(webhook.id, STATUSES.length);
    expect(rows).to.have.length(STATUSES.length);
    const events = await receiver.waitFor(STATUSES.length);
    expect(events.map((request) => request.json.data.sms.internal_status)).to.have.members([...STATUSES]);
  });

  it('when a phone connects to node B while its reports are still on their way through its old connection to node A, and sends them again on B, then each status is applied once', async function () {
    this.timeout(20_000);
    const onA = fx.track(await TaskPhone.connect(fx.gateway, fx.tenant, UNPACED));
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'reported on two nodes', device_id: onA.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const smsId: string = created.body.id;
    await onA.until(1);

    // The phone gives up on A and connects to B while its reports to A are out: A applies them
    // or loses them as it closes the old connection (a takeover) before, while or after they
    // arrive. The phone sends them all again on B, twice at once.
    const throughA = STATUSES.map((status) => unlessClosed(onA, smsId, status));
    const onB = fx.track(await TaskPhone.reconnect(cluster.b, onA));
    await Promise.all(STATUSES.flatMap((status) => [onB.report(smsId, status), onB.report(smsId, status)]));
    await Promise.all(throughA);

    for (const [node, api] of [['A', fx.tenant.api], ['B', cluster.onB(fx.tenant)]] as const) {
      const read = await api.get(`/sms/${smsId}`);
      expect(read.body.history.map((entry: { internal_status: string }) => entry.internal_status), `history read on node ${node}`).to.deep.equal(['pending', ...STATUSES]);
    }
  });
});
