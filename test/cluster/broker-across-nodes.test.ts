// Several nodes: the broker, one session per device, presence and dispatch across two nodes in
// this process (one PostgreSQL, one Redis): an operator on node A sees a phone on node B; a
// phone that connects to B while A holds its connection is taken over silently; a phone on A is
// online on B's API; an SMS created through B reaches a phone on A at once, not at A's next
// sweep.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { OPERATOR_CLIENT_PREFIX } from '../../broker/identity.ts';
import { nextEvent, UNPACED } from '../support/devices.ts';
import { RawClients } from '../support/mqtt.ts';
import { Redis } from 'ioredis';
import { EventStreamClient } from '../support/event-stream.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { TEST_REDIS_URL, useCluster, within } from './cluster-fixture.ts';
import { smsCountOf } from '../support/test-data.ts';

describe('broker, presence and dispatch across nodes', function () {
  const cluster = useCluster({ webhooks: { ...loadConfig({}).webhooks, allowedHosts: ['127.0.0.1'], retryBaseMs: 20 } });
  const { fx } = cluster;
  const onA = new RawClients(() => `mqtt://127.0.0.1:${fx.gateway.mqttPort}`);
  afterEach(() => onA.endAll());

  async function phone(node: 'a' | 'b', registered?: { id: string; token: string }): Promise<SimulatedDevice> {
    const { id, token } = registered ?? (await register());
    const port = node === 'a' ? fx.gateway.mqttPort : cluster.b.mqttPort;
    const device = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${port}`, deviceId: id, token, reconnectPeriodMs: 0 }));
    await device.connect();
    return device;
  }

  async function register(): Promise<{ id: string; token: string }> {
    const { device, token } = await fx.registerDevice('cluster-phone');
    return { id: device.id, token };
  }

  async function operatorOnA() {
    const { key } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['devices:monitor']);
    return onA.connect({ clientId: `${OPERATOR_CLIENT_PREFIX}watch`, username: 'operator', password: key, reconnectPeriod: 0 });
  }

  it('when a phone is connected to node B, then an operator subscribing on node A gets its retained presence and its heartbeats live', async () => {
    const device = await phone('b');
    const operator = await operatorOnA();
    await operator.subscribe(`sms-gateway/v1/devices/${device.id}/+`);
    const retained = await operator.nextMessage((message) => message.topic === deviceTopic(device.id, 'presence'), 3_000);
    expect(retained).to.include({ payload: 'online', retain: true });

    await device.heartbeat();
    const live = await operator.nextMessage((message) => message.topic === deviceTopic(device.id, 'heartbeat'), 3_000);
    expect(JSON.parse(live.payload)).to.have.property('battery_level');
  });

  it('when a phone is connected to node A, then node B shows it online, and offline once it disconnects', async () => {
    const device = await phone('a');
    const onB = cluster.onB(fx.tenant);
    await within(2_000, async () => (await onB.get(`/devices/${device.id}`)).body.is_online === true);
    const page = await (await scrapeMetrics(`http://127.0.0.1:${cluster.b.httpPort}`)).text();
    expect(Number(/^cluster_nodes\{[^}]*\} (\d+)$/m.exec(page)?.[1]), 'both nodes alive').to.be.at.least(2);
    expect(Number(/^cluster_devices_elsewhere\{[^}]*\} (\d+)$/m.exec(page)?.[1]), 'the phone on A').to.be.at.least(1);

    await device.stop();
    const took = await within(2_000, async () => (await onB.get(`/devices/${device.id}`)).body.is_online === false);
    expect(took).to.be.below(1_000);
  });

  it('when a phone connects to node B while node A holds its connection, then A closes the old one, the phone stays online with no offline or online announced, and the operator still sees it online', async () => {
    const receiver = await fx.receiver();
    expect((await fx.tenant.api.post('/webhooks', { url: receiver.url, events: ['device.online', 'device.offline'] })).status).to.equal(201);
    const credentials = await register();
    const first = await phone('a', credentials);
    await receiver.waitFor(1, (received) => received.json?.type === 'device.online', 5_000);

    const closed = new Promise<void>((resolve) => first.agent.session.mqttClient!.once('close', () => resolve()));
    const second = await phone('b', credentials);
    await closed;

    const onB = cluster.onB(fx.tenant);
    // Both nodes, a while after the move: online, and never announced otherwise.
    await within(2_000, async () => (await fx.tenant.api.get(`/devices/${second.id}`)).body.is_online === true);
    expect((await onB.get(`/devices/${second.id}`)).body.is_online).to.equal(true);
    const operator = await operatorOnA();
    await operator.subscribe(deviceTopic(second.id, 'presence'));
    expect((await operator.nextMessage(() => true, 3_000)).payload, 'the retained presence').to.equal('online');
    // The sender delivers in order: a later event for another phone proves nothing else was queued for this one.
    const marker = await phone('a');
    await receiver.waitFor(1, (received) => received.json?.data?.device?.id === marker.id, 5_000);
    const events = receiver.received.filter((received) => received.json?.data?.device?.id === second.id).map((received) => received.json.type);
    expect(events).to.deep.equal(['device.online']);
  });

  it('when an SMS is created through node B for the pool, then the phone on node A gets it at once, not at the next sweep', async () => {
    const device = await phone('a');
    expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED)).status).to.equal(200);
    const onB = cluster.onB(fx.tenant);
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const task = nextEvent(device, 'task', () => true, 5_000);
      const started = performance.now();
      const created = await onB.post('/sms', { phone: '+79161234567', message: `across ${i}` });
      expect(created.status).to.equal(201);
      await task;
      latencies.push(performance.now() - started);
    }
    // The sweep runs every second: every one of five in well under that is the wake-up's doing.
    expect(Math.max(...latencies)).to.be.below(500);
  });

  it('when the panel streams events from node B and the phone reports to node A, then the stream hears the status changes and the presence', async () => {
    const stream = fx.track(await EventStreamClient.open(`http://127.0.0.1:${cluster.b.httpPort}/api/ext/v1/events`, { authorization: `Bearer ${fx.tenant.key}` }));
    expect(stream.status).to.equal(200);
    const device = await phone('a');
    await stream.next('device.presence', (data) => data.id === device.id && data.online === true);
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'watched from B' });
    expect(created.status).to.equal(201);
    const delivered = await stream.next('sms.status', (data) => data.id === created.body.id && data.status === 'delivered');
    expect(delivered.data.device_id).to.equal(device.id);
  });

  it('when a no_store SMS is posted on node B and the only phone is on node A, then A sends it, its reports reach a webhook, and no row is written', async () => {
    const receiver = await fx.receiver();
    expect((await fx.tenant.api.post('/webhooks', { url: receiver.url, events: ['sms.status_changed'] })).status).to.equal(201);
    const device = await phone('a');
    const onB = cluster.onB(fx.tenant);
    await within(2_000, async () => (await onB.get(`/devices/${device.id}`)).body.is_online === true);
    const rowsBefore = await smsCountOf(fx, fx.tenant.accountId);

    const task = nextEvent(device, 'task', () => true, 5_000);
    const reply = await onB.post('/sms', { phone: '+79161234567', message: 'not kept', no_store: true });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(reply.body.device_id).to.equal(device.id);
    const [sent] = await task;
    expect(sent.sms_id).to.equal(reply.body.id);
    const [event] = await receiver.waitFor(1, (received) => received.json?.data?.sms?.internal_status === 'delivered', 5_000);
    expect(event!.json.data.sms).to.include({ id: reply.body.id, no_store: true });
    expect(await smsCountOf(fx, fx.tenant.accountId)).to.equal(rowsBefore);
  });

  it('when garbage is published on the broker\'s Redis channels, then it is counted and dropped, and the nodes go on relaying', async () => {
    const device = await phone('b');
    const operator = await operatorOnA();
    await operator.subscribe(deviceTopic(device.id, 'heartbeat'));
    const intruder = new Redis(TEST_REDIS_URL);
    try {
      const channel = `${cluster.shared.redisPrefix}:mqtt:${deviceTopic(device.id, 'heartbeat')}`;
      for (const garbage of [Buffer.from('not msgpack'), Buffer.from([0xc1]), Buffer.from([0x7b]), Buffer.from([0x82, 0xa2, 0x69, 0x64, 0x01, 0xa3, 0x6d, 0x73, 0x67, 0x02])]) {
        await intruder.publish(channel, garbage);
      }
    } finally {
      intruder.disconnect();
    }
    const dropped = () => fx.gateway.services.metrics.value('cluster_mqtt_messages_dropped_total', { reason: 'malformed' }) ?? 0;
    await within(2_000, async () => dropped() >= 4);
    await device.heartbeat();
    const live = await operator.nextMessage((message) => message.topic === deviceTopic(device.id, 'heartbeat'), 3_000);
    expect(JSON.parse(live.payload)).to.have.property('battery_level');
  });
});
