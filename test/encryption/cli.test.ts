// The command line's side of end-to-end encryption: `sms-gateway e2e encrypt|decrypt` makes and
// opens the ciphertext offline, and `sms-gateway simulate` with a passphrase runs phones that
// decrypt encrypted SMS and send them (the real command, against a real gateway).
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Gateway } from '../../src/gateway.ts';
import { decrypt, encrypt } from '../../src/common/end-to-end.ts';
import { expectRefused, GatewayProcess, killChildren, runCli, tempDataDir } from '../support/cli.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';

const PASSPHRASE = 'the simulated phones know this';

describe('cli: end-to-end encryption', function () {
  this.timeout(120_000);
  let gateway: Gateway;
  let tenant: Tenant;
  const files = tempDataDir('e2e');

  before(async () => {
    gateway = await startGateway();
    tenant = await createTenant(gateway);
  });
  after(async () => {
    killChildren();
    files.remove();
    await gateway.stop();
  });

  it('e2e encrypt makes ciphertext that opens with the passphrase, and e2e decrypt opens it', async () => {
    const encrypted = await runCli(['e2e', 'encrypt', '+79161234567'], { SMS_GATEWAY_PASSPHRASE: PASSPHRASE });
    expect(encrypted.code, encrypted.transcript).to.equal(0);
    const ciphertext = encrypted.stdout.trim();
    expect(await decrypt(ciphertext, PASSPHRASE)).to.equal('+79161234567');
    const decrypted = await runCli(['e2e', 'decrypt', ciphertext, '--json'], { SMS_GATEWAY_PASSPHRASE: PASSPHRASE });
    expect(JSON.parse(decrypted.stdout)).to.deep.equal({ plaintext: '+79161234567' });
  });

  it('e2e decrypt with another passphrase, or without one, fails in one line', async () => {
    const ciphertext = await encrypt('hello', PASSPHRASE);
    const wrong = await runCli(['e2e', 'decrypt', ciphertext], { SMS_GATEWAY_PASSPHRASE: 'not it' });
    expectRefused(wrong, 1);
    expect(wrong.stderr).to.contain('the passphrase does not open this payload');
    const none = await runCli(['e2e', 'decrypt', ciphertext], { SMS_GATEWAY_PASSPHRASE: undefined });
    expectRefused(none, 2);
    expect(none.stderr).to.contain('a passphrase is needed');
  });

  it('simulate --passphrase-file runs a phone that decrypts an encrypted SMS and sends it', async () => {
    const { device, token } = await registerDevice(gateway, tenant);
    const file = join(files.dir, 'passphrase');
    writeFileSync(file, `${PASSPHRASE}\n`, { mode: 0o600 });
    const run = new GatewayProcess(
      ['simulate', '--device', device.id, '--token', token, '--passphrase-file', file, '--delay', '0', '--mqtt', `mqtt://127.0.0.1:${gateway.mqttPort}`, '--api', `http://127.0.0.1:${gateway.httpPort}`],
      { SMS_GATEWAY_PASSPHRASE: undefined },
    );
    try {
      await run.waitFor('devices online', 60_000, () => (/\d+ device\(s\) online/.test(run.stderr) ? true : undefined));
      const reply = await tenant.api.post('/sms/encrypted', {
        phone: await encrypt('+79161234567', PASSPHRASE),
        message: await encrypt('sent by the simulator', PASSPHRASE),
        device_id: device.id,
      });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      const status = await eventually(
        'the SMS to be delivered',
        async () => {
          const read = await tenant.api.get(`/sms/${reply.body.id}`);
          return ['delivered', 'failed_send'].includes(read.body.status) ? read.body : undefined;
        },
        20_000,
      );
      expect(status, run.transcript()).to.include({ status: 'delivered', reason: null });
    } finally {
      run.signal('SIGINT');
      await run.waitForExit(15_000).catch(() => run.kill());
    }
  });

  it('simulate refuses --encrypt-incoming without a passphrase', async () => {
    const result = await runCli(['simulate', '--device', 'x', '--token', 'y', '--encrypt-incoming'], { SMS_GATEWAY_PASSPHRASE: undefined });
    expectRefused(result, 2);
    expect(result.stderr).to.contain('--encrypt-incoming needs a passphrase');
  });
});
