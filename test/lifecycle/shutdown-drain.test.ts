// SHUTDOWN_DRAIN: a node behind a load balancer is taken out before it stops. After SIGTERM it
// answers /readyz 503 "draining" for that long while serving everything else as before, then it
// stops cleanly; a second signal stops it at once.
import { expect } from 'chai';
import { GatewayProcess, killChildren, tempDataDir } from '../support/cli.ts';

describe('sms-gateway serve with SHUTDOWN_DRAIN', function () {
  this.timeout(240_000);
  const dataDir = tempDataDir('drain');
  after(() => {
    killChildren();
    dataDir.remove();
  });

  async function start(): Promise<{ gateway: GatewayProcess; base: string }> {
    const gateway = new GatewayProcess(['serve'], { DATA_DIR: dataDir.dir, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DRAIN: '2' });
    const port = (await gateway.waitForLog('gateway listening', 200_000)).port as number;
    return { gateway, base: `http://127.0.0.1:${port}` };
  }

  it('when SIGTERM arrives, then /readyz answers 503 draining while the rest still answers, and the node stops cleanly after the drain', async () => {
    const { gateway, base } = await start();
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);

    const signalledAt = performance.now();
    gateway.signal('SIGTERM');
    await gateway.waitForLog('draining: /readyz answers 503 until the node stops', 5_000);
    const readiness = await fetch(`${base}/readyz`);
    expect(readiness.status).to.equal(503);
    expect(((await readiness.json()) as { status: string }).status).to.equal('draining');
    expect((await fetch(`${base}/healthz`)).status, 'still alive').to.equal(200);
    expect((await fetch(`${base}/api/ext/v1/openapi.json`)).status, 'still serving').to.equal(200);

    const exit = await gateway.waitForExit(15_000);
    expect(exit.code).to.equal(0);
    expect(performance.now() - signalledAt, 'not before the drain is over').to.be.above(1_900);
  });

  it('when a second signal arrives during the drain, then the node stops at once', async () => {
    const { gateway, base } = await start();
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    gateway.signal('SIGTERM');
    await gateway.waitForLog('draining: /readyz answers 503 until the node stops', 5_000);
    const secondAt = performance.now();
    gateway.signal('SIGINT');
    const exit = await gateway.waitForExit(15_000);
    expect(exit.code).to.equal(0);
    expect(performance.now() - secondAt, 'without waiting out the 2 s').to.be.below(1_900);
  });
});
