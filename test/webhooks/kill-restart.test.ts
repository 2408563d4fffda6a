// Nothing is lost across a kill of the gateway process: events whose receiver is down are
// outbox rows, and a new gateway process delivers every one of them once the receiver is back.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { GatewayProcess, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { ApiClient } from '../support/tenant.ts';
import { nextEvent } from '../support/devices.ts';
import { Receiver } from '../support/receiver.ts';

const SMS_COUNT = 5;

describe('webhooks: a receiver that is down while the gateway is killed and restarted', function () {
  this.timeout(180_000);
  let dataDir: ReturnType<typeof tempDataDir>;
  let env: Env;

  before(() => {
    dataDir = tempDataDir('webhook-kill');
    env = {
      ...(testDatabase().kind === 'postgres' ? { DATABASE_URL: testDatabaseUrl() } : {}),
      DATA_DIR: dataDir.dir,
      PORT: '0',
      MQTT_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_DISABLE_AFTER: '100000',
      // A delivery in flight when the process dies is leased for 3 x timeout + 5 s: keep that short.
      WEBHOOK_TIMEOUT: '1',
    };
  });
  after(() => {
    killChildren();
    dataDir.remove();
  });

  it('then, once the receiver is back, the restarted gateway delivers every event', async () => {
    // A port for the receiver, free again until the receiver comes back.
    const receiver = new Receiver();
    await receiver.start();
    const port = receiver.port;
    await receiver.stop();

    const account = `kill-${randomBytes(4).toString('hex')}`;
    // The first command on a fresh embedded DATA_DIR initialises its cluster and runs every
    // migration: over ten seconds of CPU, which a busy two-core machine can stretch past 30.
    expect((await runCli(['accounts', 'create', account], env, 90_000)).code).to.equal(0);
    const key = JSON.parse((await runCli(['keys', 'create', '--account', account, '--permissions', 'all', '--json'], env)).stdout).key as string;
    const created = await runCli(['webhooks', 'create', '--account', account, '--url', `http://127.0.0.1:${port}/hook`, '--events', 'sms.status_changed', '--json'], env);
    expect(created.code, created.stderr).to.equal(0);
    const { secret } = JSON.parse(created.stdout) as { secret: string };

    const first = new GatewayProcess(['serve'], env);
    const listening = await first.waitForLog('gateway listening');
    const api = new ApiClient(`http://127.0.0.1:${listening.port}/api/ext/v1`, key);
    const registered = await api.post('/devices', { name: 'phone' });
    const phone = new SimulatedDevice({
      brokerUrl: `mqtt://127.0.0.1:${listening.mqttPort}`,
      deviceId: registered.body.device.id,
      token: registered.body.credentials.password,
      reconnectPeriodMs: 0,
    });
    await phone.connect();
    const ids: string[] = [];
    let delivered = 0;
    const allDelivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered' && ++delivered === SMS_COUNT, 20_000);
    for (let i = 0; i < SMS_COUNT; i++) {
      const sms = await api.post('/sms', { phone: '+79161234567', message: `kill test ${i}` });
      expect(sms.status, JSON.stringify(sms.body)).to.equal(201);
      ids.push(sms.body.id);
    }
    await allDelivered;

    // Every status change is committed with its outbox row; the receiver is still down. Kill -9.
    first.kill();
    await first.waitForExit();
    await phone.kill();

    await receiver.start(port);
    const second = new GatewayProcess(['serve'], env);
    try {
      await second.waitForLog('gateway listening');
      const expected = ids.flatMap((id) => ['processing', 'sent', 'delivered'].map((status) => `${id}/${status}`));
      const got = await receiver.waitFor(expected.length, () => true, 45_000);
      const verifier = new Webhook(secret);
      const seen = new Set(
        got.map((request) => {
          const event = verifier.verify(request.body, request.headers as Record<string, string>) as any;
          return `${event.data.sms.id}/${event.data.sms.internal_status}`;
        }),
      );
      expect([...seen].sort()).to.deep.equal(expected.sort());
    } finally {
      second.signal('SIGTERM');
      await second.waitForExit(15_000);
      await receiver.stop();
    }
  });
});
