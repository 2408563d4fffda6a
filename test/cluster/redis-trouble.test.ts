// Redis trouble (README, "Several nodes"): /readyz reports Redis; while Redis is down every
// node keeps serving, and after Redis returns everything converges without a restart. Each
// node's /metrics labels its node id, and the node id shows in its logs.
//
// Node C reaches Redis through a TCP link the test cuts and restores; its log lines are kept.
import { expect } from 'chai';
import type { Config } from '../../src/config.ts';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { updateDeviceSettings } from '../../src/use-cases/update-device-settings.ts';
import { nextEvent, UNPACED } from '../support/devices.ts';
import { ApiClient } from '../support/tenant.ts';
import { TEST_REDIS_URL, useCluster, within } from './cluster-fixture.ts';
import { GatewayLog } from '../support/gateway-log.ts';
import { RedisLink } from '../support/outage.ts';

type Readiness = { status: number; body: { status: string; checks: Record<string, string> } };

async function readiness(gateway: Gateway): Promise<Readiness> {
  const response = await fetch(`http://127.0.0.1:${gateway.httpPort}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness['body'] };
}

describe('Redis trouble, readiness, node ids', function () {
  const cluster = useCluster();
  const { fx } = cluster;

  /** A node started with its own logger, as `serve` starts one (stopped after the test). */
  async function startLoggedNode(overrides: Partial<Config>, sink: GatewayLog): Promise<Gateway> {
    return fx.track(await startGateway({ logLevel: 'info', ...cluster.shared, ...overrides }, undefined, sink));
  }

  it('when Redis answers, then /readyz reports checks.redis ok', async () => {
    const { status, body } = await readiness(fx.gateway);
    expect(status).to.equal(200);
    expect(body.checks).to.include({ database: 'ok', broker: 'ok', redis: 'ok' });
  });

  it('when a node runs with Redis, then every sample of its /metrics carries its node id, process figures included', async () => {
    await fetch(`${fx.baseUrl}/healthz`);
    const page = await (await scrapeMetrics(fx.baseUrl)).text();
    const samples = page.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(samples.length).to.be.greaterThan(10);
    const nodeId = fx.gateway.config.nodeId;
    for (const sample of samples) expect(sample).to.contain(`node="${nodeId}"`);
    expect(samples.some((sample) => sample.startsWith('nodejs_eventloop_lag_seconds{'))).to.equal(true);
    // Node B, in the same process, labels the same process figures with its own id.
    const pageOfB = await (await scrapeMetrics(`http://127.0.0.1:${cluster.b.httpPort}`)).text();
    expect(pageOfB).to.contain(`nodejs_eventloop_lag_seconds{node="${cluster.b.config.nodeId}"}`);
  });

  it('when Redis cannot be reached at start, then the node starts anyway, ready, with checks.redis failing, and says so once', async function () {
    this.timeout(20_000);
    const sink = new GatewayLog();
    // Port 1: nothing listens there.
    const node = await startLoggedNode({ nodeId: 'no-redis', redisUrl: 'redis://127.0.0.1:1' }, sink);
    const { status, body } = await readiness(node);
    expect(status, 'a node without Redis keeps serving').to.equal(200);
    expect(body.checks).to.include({ database: 'ok', redis: 'failing' });
    expect(sink.count('Redis unavailable'), 'once, however many reconnects').to.equal(1);
    for (const line of sink.lines) expect(line.node, String(line.msg)).to.equal('no-redis');
  });

  it('when Redis goes away and comes back, then the node serves meanwhile, says so once each way, and drops what it may have missed', async function () {
    this.timeout(20_000);
    const proxy = fx.track(await RedisLink.open(TEST_REDIS_URL));
    const sink = new GatewayLog();
    const node = await startLoggedNode({ nodeId: 'node-c', redisUrl: proxy.url }, sink);
    expect((await readiness(node)).body.checks.redis).to.equal('ok');

    const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['devices:read']);
    const onC = new ApiClient(`http://127.0.0.1:${node.httpPort}/api/ext/v1`, key);
    expect((await onC.get('/devices')).status, 'C caches the live key').to.equal(200);
    const cachedAt = performance.now();

    const down = sink.next('Redis unavailable');
    await proxy.cut();
    await down;
    const during = await readiness(node);
    expect(during.status, 'still ready').to.equal(200);
    expect(during.body.checks.redis).to.equal('failing');

    // Revoked on A while C cannot hear it: C still believes its cache.
    expect((await fx.tenant.api.delete(`/keys/${row.id}`)).status).to.equal(200);
    expect((await onC.get('/devices')).status, 'the revocation was missed').to.equal(200);

    const back = sink.next('Redis back');
    await proxy.restore();
    await back;
    expect((await onC.get('/devices')).status, 'caches dropped when Redis came back').to.equal(401);
    expect(performance.now() - cachedAt, 'before the 5 s cache lifetime could explain it').to.be.below(5_000);
    await within(3_000, async () => (await readiness(node)).body.checks.redis === 'ok');

    expect(sink.count('Redis unavailable')).to.equal(1);
    expect(sink.count('Redis back')).to.equal(1);
    for (const line of sink.lines) expect(line.node, String(line.msg)).to.equal('node-c');
  });

  it('when Redis is down, then a phone on the node gets the SMS made there and its reports are applied; when Redis is back, an SMS made on another node reaches it at once again', async function () {
    this.timeout(30_000);
    const proxy = fx.track(await RedisLink.open(TEST_REDIS_URL));
    const sink = new GatewayLog();
    const node = await startLoggedNode({ nodeId: 'node-d', redisUrl: proxy.url }, sink);
    const { device, token } = await fx.registerDevice('phone-on-d');
    expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED)).status).to.equal(200);
    const phone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${node.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 }));
    await phone.connect();
    const onD = new ApiClient(`http://127.0.0.1:${node.httpPort}/api/ext/v1`, fx.tenant.key);

    const down = sink.next('Redis unavailable');
    await proxy.cut();
    await down;
    const during = await onD.post('/sms', { phone: '+79161234567', message: 'while Redis is down' });
    expect(during.status, 'accepted into PostgreSQL').to.equal(201);
    await within(5_000, async () => (await onD.get(`/sms/${during.body.id}`)).body.status === 'delivered');
    expect(phone.sendCount.get(during.body.id)).to.equal(1);
    // A phone that connects while Redis is down is served too, and known to the others once it is back.
    const { device: late, token: lateToken } = await fx.registerDevice('late-phone-on-d');
    // It may not send: the SMS below must go to the first phone.
    await updateDeviceSettings(fx.gateway.services, fx.gateway.services.db, fx.tenant.accountId, late.id, { can_send_sms: false });
    const latePhone = fx.track(new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${node.mqttPort}`, deviceId: late.id, token: lateToken, reconnectPeriodMs: 100 }));
    await latePhone.connect();
    expect((await fx.tenant.api.get(`/devices/${late.id}`)).body.is_online, 'node A cannot hear node D').to.equal(false);

    const back = sink.next('Redis back');
    await proxy.restore();
    await back;
    // The emitter's own connections reconnect on their own schedule: wait until a wake-up gets through.
    await within(10_000, async () => (await readiness(node)).body.checks.redis === 'ok');
    await within(5_000, async () => (await fx.tenant.api.get(`/devices/${late.id}`)).body.is_online === true);
    expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.is_online).to.equal(true);
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const task = nextEvent(phone, 'task', () => true, 5_000);
      const started = performance.now();
      expect((await fx.tenant.api.post('/sms', { phone: '+79161234567', message: `after ${i}` })).status).to.equal(201);
      await task;
      latencies.push(performance.now() - started);
    }
    expect(Math.min(...latencies), 'woken at once, not by the 1 s sweep').to.be.below(500);
  });
});
