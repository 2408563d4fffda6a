// The test fixture itself (test/support/use-gateway.ts), driven step by step the way its mocha
// hooks drive it: what a test opens is closed after that test, what the describe opened is
// closed at its end, a failing close does not keep the others open, and a gateway a test
// stopped itself is not a problem for the teardown.
import { connect } from 'node:net';
import { expect } from 'chai';
import { GatewayFixture } from '../support/use-gateway.ts';

/** True when something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('GatewayFixture', function () {
  // The embedded database migrates on every start.
  this.timeout(60_000);

  it('gives each test a fresh tenant, and closes the phones, clients and receivers a test opened after it', async () => {
    const fx = new GatewayFixture();
    try {
      await fx.setUp();
      await fx.beforeEach();
      const first = fx.tenant;
      const phone = await fx.connectDevice();
      const { device, token } = await fx.registerDevice('raw');
      const raw = await fx.clients.device(device.id, token);
      const receiver = await fx.receiver();
      const receiverPort = receiver.port;
      expect(phone.connected).to.equal(true);
      expect(await listening(receiverPort)).to.equal(true);
      await fx.afterEach();

      expect(phone.connected, 'the phone is stopped').to.equal(false);
      expect(raw.closed, 'the raw client is ended').to.equal(true);
      expect(await listening(receiverPort), 'the receiver is stopped').to.equal(false);
      expect(await listening(fx.gateway.httpPort), 'the gateway outlives the test').to.equal(true);

      await fx.beforeEach();
      expect(fx.tenant.accountId, 'a new tenant for the next test').to.not.equal(first.accountId);
      await fx.afterEach();
    } finally {
      await fx.tearDown();
    }
  });

  it('stops the gateway, and the gateways and phones opened outside a test, at the end of the describe', async () => {
    const fx = new GatewayFixture({ tenant: 'once' });
    await fx.setUp();
    const other = await fx.startGateway();
    const phone = await fx.connectDevice();
    const ports = [fx.gateway.httpPort, other.httpPort];
    await fx.tearDown();

    expect(phone.connected).to.equal(false);
    for (const port of ports) expect(await listening(port), `port ${port} closed`).to.equal(false);
  });

  it('closes everything else when one close fails, then reports that failure', async () => {
    const fx = new GatewayFixture();
    await fx.setUp();
    await fx.beforeEach();
    const phone = await fx.connectDevice();
    fx.onCleanup(() => {
      throw new Error('this close fails');
    });
    const receiverPort = (await fx.receiver()).port;
    let failure: unknown;
    await fx.afterEach().catch((error: unknown) => (failure = error));
    expect((failure as Error | undefined)?.message).to.equal('this close fails');
    expect(phone.connected).to.equal(false);
    expect(await listening(receiverPort)).to.equal(false);
    await fx.tearDown();
  });

  it('lets a test stop a gateway itself (a restart): the teardown does not fail on it', async () => {
    const fx = new GatewayFixture({ tenant: 'none' });
    await fx.setUp();
    await fx.beforeEach();
    const restarted = await fx.startGateway();
    const ports = [fx.gateway.httpPort, restarted.httpPort];
    await restarted.stop();
    await fx.gateway.stop();
    await fx.afterEach();
    await fx.tearDown();
    for (const port of ports) expect(await listening(port), `port ${port} closed`).to.equal(false);
  });
});
