// A rolling restart, as an upgrade is rolled out: each node in turn is stopped cleanly (SIGTERM;
// with SHUTDOWN_DRAIN it first answers /readyz 503, so that the balancer sends new requests to
// the others) and started again where its phones reconnect, while SMS keep coming through the
// nodes the balancer still uses. Nothing may be refused, lost or sent twice.
import { expect } from 'chai';
import type { ApiClient } from '../support/tenant.ts';
import { useDeployment } from './support/deployment.ts';
import type { GatewayNode } from './support/node-process.ts';
import { isOnline, phoneOn, registerPhone } from './support/phones.ts';
import { allDelivered, expectDeliveredOnce, smsState, statusSummary } from './support/sms.ts';
import { SmsLoad } from './support/sms-load.ts';
import { ms, until } from './support/waits.ts';

const DRAIN_S = 1;
const NODES = ['a', 'b'];

describe('multi-node: rolling restart under load', function () {
  this.timeout(90_000);
  const deployment = useDeployment({ nodes: NODES, env: { SHUTDOWN_DRAIN: String(DRAIN_S) } });

  it('when each node in turn is stopped and started again while SMS keep coming, then none is refused, every one is delivered once, and the phones end online everywhere', async () => {
    const tenant = await deployment.tenant();
    // A phone reconnects soon after its node went away, as the app does (backoff capped low here).
    const reconnecting = { reconnectPeriodMs: 100, maxReconnectPeriodMs: 500, delays: { sent: 100 } };
    const phones = await Promise.all(
      NODES.map(async (name) => phoneOn(deployment, deployment.node(name), await registerPhone(tenant.on(name), `phone-on-${name}`), reconnecting)),
    );
    // The balancer: the API of a node it still sends requests to, in turn.
    const inRotation = new Set(NODES);
    let turn = 0;
    const balanced = (): ApiClient => {
      const names = [...inRotation];
      return tenant.on(names[turn++ % names.length]!);
    };
    const load = new SmsLoad([{ name: 'pool', via: balanced }], 60);
    deployment.afterTest(() => load.stop());
    load.start();
    await until('10 SMS accepted before the restarts', async () => load.sent.length >= 10, 10_000);

    const figures: string[] = [];
    for (const name of NODES) {
      const phone = phones[NODES.indexOf(name)]!;
      const stoppedAt = performance.now();
      const back = await deployment.restartNode(name, async (stopping: GatewayNode) => {
        // The node says it is draining; the balancer takes it out.
        const draining = await until(`/readyz of ${name} answering 503 while it drains`, async () => (await readyStatus(stopping)) === 503, 5_000);
        inRotation.delete(name);
        figures.push(`${name} draining after ${ms(draining.ms)}`);
      });
      const listeningMs = performance.now() - stoppedAt;
      inRotation.add(name);
      const reconnected = await until(`the phone of ${name} connected again`, async () => phone.connected && (await isOnline(tenant.on(name), phone.id)), 10_000);
      figures.push(`${name} listening again ${ms(listeningMs)} after SIGTERM, its phone back ${ms(reconnected.ms)} later`);
      expect(back.alive).to.equal(true);
    }
    const last = load.sent.length;
    await until('10 more SMS accepted after the restarts', async () => load.sent.length >= last + 10, 10_000);
    await load.stop();

    expect(load.refused.map((sent) => sent.status), 'SMS refused').to.deep.equal([]);
    const ids = load.sent.map((sent) => sent.id!);
    const delivered = await until('every SMS delivered', () => allDelivered(tenant.on('a'), ids), 20_000, () => statusSummary(tenant.on('a'), ids));
    console.log(`      rolling restart: ${figures.join('; ')}; ${ids.length} SMS, all delivered ${ms(delivered.ms)} after the load stopped`);
    for (const id of ids) {
      const sends = phones.reduce((sum, phone) => sum + (phone.sendCount.get(id) ?? 0), 0);
      expect(sends, `SMS ${id} sent over the radio`).to.equal(1);
      expectDeliveredOnce(await smsState(tenant.on('b'), id), `SMS ${id}`);
    }
    for (const name of NODES) {
      for (const phone of phones) expect(await isOnline(tenant.on(name), phone.id), `${name} shows ${phone.options.name} online`).to.equal(true);
    }
  });
});

async function readyStatus(node: GatewayNode): Promise<number> {
  try {
    const response = await fetch(`${node.baseUrl}/readyz`);
    await response.arrayBuffer();
    return response.status;
  } catch {
    // Gone already: as good as out of rotation, but not the drain this test waits for.
    return 0;
  }
}
