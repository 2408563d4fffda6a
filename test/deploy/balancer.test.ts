// The balancer of the multi-node deployment at work: the real haproxy with the shipped
// deploy/cluster/haproxy.cfg (local-haproxy.ts) in front of two real nodes on one PostgreSQL
// and Redis, with real phones and real HTTP through it, over the TLS it ends. docs/deployment.md
// promises what is checked here: requests spread over the nodes, phones spread too and reachable
// wherever they land, and a node stopped for a restart is left by its phones, and by GETs
// without one failing.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useCluster, within } from '../cluster/cluster-fixture.ts';
import { UNPACED } from '../support/devices.ts';
import { ApiClient, type Reply } from '../support/tenant.ts';
import { LocalHaproxy } from './local-haproxy.ts';
import { scrapeMetrics, TEST_METRICS_TOKEN } from '../support/metrics.ts';
import { TrustedProxies } from '../../src/common/client-address.ts';

describe('deployment: HAProxy in front of two nodes', function () {
  this.timeout(30_000);
  // The nodes believe the balancer on 127.0.0.1 (TRUSTED_PROXIES): its MQTT connections start with a PROXY v2 header.
  const cluster = useCluster({ trustedProxies: TrustedProxies.parse(['127.0.0.1']) });
  const { fx } = cluster;
  let haproxy: LocalHaproxy;

  before(async () => {
    haproxy = await LocalHaproxy.start({ 'node-a': fx.gateway, 'node-b': cluster.b });
    fx.onCleanup(() => haproxy.stop());
  });

  /** The tenant's Extended API through the balancer, over HTTPS. */
  const api = () => new BalancerApi(haproxy, `${haproxy.httpUrl}/api/ext/v1`, fx.tenant.key);

  /** The node that answered a request through the balancer: the `node` label of its /metrics. */
  async function answeringNode(): Promise<string> {
    const response = await haproxy.fetch(`${haproxy.httpUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
    expect(response.status).to.equal(200);
    const node = /\bnode="([^"]+)"/.exec(await response.text())?.[1];
    if (!node) throw new Error('/metrics carries no node label');
    return node;
  }

  /** MQTT connections open on a node now, read from that node's own /metrics. */
  async function connectionsOn(node: Gateway): Promise<number> {
    const text = await (await scrapeMetrics(`http://127.0.0.1:${node.httpPort}`)).text();
    const sample = /^mqtt_connected_clients(?:\{[^}]*\})? (\d+)$/m.exec(text);
    if (!sample) throw new Error('/metrics has no mqtt_connected_clients');
    return Number(sample[1]);
  }

  /** Resolves once each node holds one MQTT connection (a previous test's phones may take a moment to be gone); fails after 3 s. */
  async function oneOnEachNode(): Promise<void> {
    let seen: number[] = [];
    await within(3_000, async () => {
      seen = [await connectionsOn(fx.gateway), await connectionsOn(cluster.b)];
      return seen[0] === 1 && seen[1] === 1;
    }).catch(() => expect(seen, 'MQTT connections on node A and node B').to.deep.equal([1, 1]));
  }

  /** A phone of the test's tenant connected through the balancer's MQTT port (or `brokerUrl`). */
  async function phoneThroughBalancer(name: string, brokerUrl = haproxy.mqttUrl): Promise<SimulatedDevice> {
    const phone = await fx.connectDevice({ brokerUrl, name, ca: haproxy.ca });
    expect((await api().patch(`/devices/${phone.id}/settings`, UNPACED)).status).to.equal(200);
    return phone;
  }

  /** Sends an SMS through the balancer to `phone` and resolves once the API, through the balancer, shows it sent. */
  async function sendThrough(phone: SimulatedDevice): Promise<void> {
    const created = await api().post('/sms', { phone: '+79161234567', message: 'through the balancer', device_id: phone.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await within(10_000, async () => ['sent', 'delivered'].includes((await api().get(`/sms/${created.body.id}`)).body.status));
  }

  it('when a client asks over plain HTTP, then it is only redirected to HTTPS', async () => {
    const response = await fetch(`http://127.0.0.1:${haproxy.redirectPort}/api/ext/v1/devices`, { redirect: 'manual' });
    expect(response.status).to.equal(301);
    expect(response.headers.get('location')).to.equal(`https://127.0.0.1:${haproxy.redirectPort}/api/ext/v1/devices`);
  });

  it('when HTTP requests go through the balancer, then the two nodes answer them in turn', async () => {
    const nodes = [];
    for (let request = 0; request < 4; request++) nodes.push(await answeringNode());
    expect(new Set(nodes)).to.deep.equal(new Set([fx.gateway.config.nodeId, cluster.b.config.nodeId]));
    expect(nodes[0]).to.not.equal(nodes[1]);
    expect(nodes[2]).to.equal(nodes[0]);
    expect(nodes[3]).to.equal(nodes[1]);
  });

  it('when two phones connect through the balancer, then each node holds one, and each gets the SMS sent to it through the balancer', async () => {
    const phones = [await phoneThroughBalancer('first'), await phoneThroughBalancer('second')];
    await oneOnEachNode();
    for (const phone of phones) await sendThrough(phone);
  });

  it('when a phone connects over WSS to /mqtt on the balancer\'s HTTPS port, then it gets the SMS sent to it', async () => {
    const phone = await phoneThroughBalancer('websocket', `wss://127.0.0.1:${haproxy.httpPort}/mqtt`);
    await sendThrough(phone);
  });

  // Last: node B stays stopped.
  it('when a node stops, then its phone reconnects through the balancer to the other, every GET through the balancer meanwhile is answered, and the phone gets its next SMS', async function () {
    this.timeout(60_000);
    const phones = [await phoneThroughBalancer('stays'), await phoneThroughBalancer('moves')];
    await oneOnEachNode();

    // GETs through the balancer, back to back, from before the stop until HAProxy has taken node B out.
    const answers: (number | string)[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) answers.push(await haproxy.fetch(`${haproxy.httpUrl}/readyz`).then((response) => response.status, (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`));
    })();
    try {
      await cluster.b.stop();
      await within(15_000, async () => (await connectionsOn(fx.gateway)) === 2 && phones.every((phone) => phone.connected));
      // Until HAProxy has taken node B out of both backends: its checks failed twice, 2 s apart.
      await within(15_000, async () => haproxy.markedDown('gateway_http', 'node-b') && haproxy.markedDown('gateway_mqtt', 'node-b'));
    } finally {
      polling = false;
      await poller;
    }
    expect(answers.length, 'requests made during the switch').to.be.above(10);
    expect(answers.filter((status) => status !== 200), `of ${answers.length} requests`).to.deep.equal([]);

    for (const phone of phones) await sendThrough(phone);
  });
});

/** ApiClient's requests, through the balancer's HTTPS with its certificate trusted. */
class BalancerApi extends ApiClient {
  constructor(
    private readonly haproxy: LocalHaproxy,
    baseUrl: string,
    key: string,
  ) {
    super(baseUrl, key);
  }

  override async request<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const response = await this.haproxy.fetch(this.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers as unknown as Headers, body: (text ? JSON.parse(text) : undefined) as T };
  }
}
