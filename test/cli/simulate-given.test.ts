// `sms-gateway simulate` for devices registered beforehand: from their pairing URLs (as the
// README tells a newcomer to register one) or their id and token, without an API key; and the
// key, when registering, from SMS_GATEWAY_KEY or --key-file instead of the command line.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatPairingUrl } from '../../agent/src/pairing.ts';
import type { Gateway } from '../../src/gateway.ts';
import { expectRefused, GatewayProcess, jsonOf, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';

describe('cli: simulate with devices registered beforehand', function () {
  this.timeout(60_000);
  let gateway: Gateway;
  let tenant: Tenant;
  let env: Env;
  const scratch = tempDataDir('simulate-given');

  before(async () => {
    gateway = await startGateway();
    tenant = await createTenant(gateway);
    env = { PORT: String(gateway.httpPort), MQTT_PORT: String(gateway.mqttPort), DATA_DIR: scratch.dir };
  });
  after(async () => {
    killChildren();
    scratch.remove();
    await gateway.stop();
  });

  /** Runs simulate until its devices are online, then stops it (Ctrl-C) and returns its --json summary. */
  async function runUntilOnline(args: string[], extra: Env = {}): Promise<{ devices: string[]; connected: number }> {
    const run = new GatewayProcess(['simulate', ...args, '--json'], { ...env, ...extra });
    try {
      await run.waitFor('devices online', 30_000, () => (/\d+ device\(s\) online/.test(run.stderr) ? true : undefined));
      run.signal('SIGINT');
      const exit = await run.waitForExit(15_000);
      expect(exit.code, run.transcript()).to.equal(0);
      return JSON.parse(run.stdout) as { devices: string[]; connected: number };
    } finally {
      run.kill();
    }
  }

  it('when given two pairing URLs and no key, then it runs exactly those devices and registers none', async () => {
    const first = await registerDevice(gateway, tenant, 'phone one');
    const second = await registerDevice(gateway, tenant, 'phone two');
    const pairing = (device: typeof first) => formatPairingUrl({ host: '127.0.0.1', port: gateway.mqttPort, deviceId: device.device.id, token: device.token });
    const before = (await tenant.api.get('/devices')).body.data.length as number;
    const summary = await runUntilOnline(['--pairing', pairing(first), '--pairing', pairing(second)]);
    expect(summary.devices.sort()).to.deep.equal([first.device.id, second.device.id].sort());
    expect(summary.connected).to.equal(2);
    expect((await tenant.api.get('/devices')).body.data.length).to.equal(before);
  });

  it('when given the pairing URLs in --pairing-file, one a line, then it runs those devices, their tokens never on its command line', async () => {
    const first = await registerDevice(gateway, tenant, 'phone five');
    const second = await registerDevice(gateway, tenant, 'phone six');
    const pairing = (device: typeof first) => formatPairingUrl({ host: '127.0.0.1', port: gateway.mqttPort, deviceId: device.device.id, token: device.token });
    const file = join(scratch.dir, 'pairing.txt');
    writeFileSync(file, `# the office phones\n${pairing(first)}\n\n  ${pairing(second)}\r\n`, { mode: 0o600 });
    const summary = await runUntilOnline(['--pairing-file', file]);
    expect(summary.devices.sort()).to.deep.equal([first.device.id, second.device.id].sort());
    expect(summary.connected).to.equal(2);
  });

  it('when given --device and --token, then that device connects', async () => {
    const { device, token } = await registerDevice(gateway, tenant, 'phone three');
    const summary = await runUntilOnline(['--device', device.id, '--token', token]);
    expect(summary.devices).to.deep.equal([device.id]);
    expect(summary.connected).to.equal(1);
  });

  it('when registered devices run from a pairing URL or their token, then their heartbeats leave the names they were registered with', async () => {
    const paired = await registerDevice(gateway, tenant, 'office phone');
    const byToken = await registerDevice(gateway, tenant, 'drawer phone');
    const url = formatPairingUrl({ host: '127.0.0.1', port: gateway.mqttPort, deviceId: paired.device.id, token: paired.token });
    await runUntilOnline(['--pairing', url, '--device', byToken.device.id, '--token', byToken.token]);
    for (const [{ device }, name] of [[paired, 'office phone'], [byToken, 'drawer phone']] as const) {
      // The heartbeat is written once its battery shows: the name is read after it.
      const view = await eventually(`the heartbeat of ${name}`, async () => {
        const body = (await tenant.api.get(`/devices/${device.id}`)).body;
        return body.battery_level !== null ? body : undefined;
      }, 10_000, 100);
      expect({ name: view.name, name_custom: view.name_custom }).to.deep.equal({ name, name_custom: name });
    }
  });

  it('when the key is in SMS_GATEWAY_KEY, then --devices registers with it', async () => {
    const summary = await runUntilOnline(['--devices', '1', '--state', join(scratch.dir, 'env.json')], { SMS_GATEWAY_KEY: tenant.key });
    expect(summary.devices).to.have.length(1);
    expect((await tenant.api.get(`/devices/${summary.devices[0]}`)).status).to.equal(200);
  });

  it('when the key is in --key-file, then --devices registers with it', async () => {
    const file = join(scratch.dir, 'key');
    writeFileSync(file, `${tenant.key}\n`, { mode: 0o600 });
    const summary = await runUntilOnline(['--devices', '1', '--key-file', file, '--state', join(scratch.dir, 'file.json')]);
    expect(summary.devices).to.have.length(1);
  });

  it('when --devices has no key anywhere, then it says where a key can come from (exit 2)', async () => {
    const result = await runCli(['simulate', '--devices', '1'], env);
    expectRefused(result, 2);
    expect(result.stderr).to.contain('set SMS_GATEWAY_KEY, or --key-file PATH');
  });

  const refusals: [string, string[], string][] = [
    ['a pairing URL of another scheme', ['--pairing', 'https://example.com/?device=x&token=secret-token'], '--pairing: the pairing URL must start with smsgw://'],
    ['a pairing URL without a device', ['--pairing', 'smsgw://127.0.0.1:1883?v=1&token=secret-token'], '--pairing: the pairing URL has no device id'],
    ['--device without --token', ['--device', '7d3f0c9e-2a44-4b8e-9a4e-0d1f2c3b4a59'], '--device and --token go together'],
    ['--device that is not an id', ['--device', 'phone', '--token', 'secret-token'], '--device must be a device id'],
    ['no devices at all', [], 'say which devices to run'],
    ['--key-file that does not exist', ['--devices', '1', '--key-file', '/nonexistent/key'], '--key-file /nonexistent/key: no such file'],
    ['--pairing-file that does not exist', ['--pairing-file', '/nonexistent/pairing'], '--pairing-file /nonexistent/pairing: no such file'],
    ['--pairing-file - with nothing on stdin', ['--pairing-file', '-'], '--pairing-file - (stdin): no pairing URL in it'],
    ['--pairing-file with a line that is no pairing URL', ['--pairing-file', join(scratch.dir, 'bad-pairing.txt')], `--pairing-file ${join(scratch.dir, 'bad-pairing.txt')}, line 2: the pairing URL has no device id`],
  ];
  before(() => writeFileSync(join(scratch.dir, 'bad-pairing.txt'), '# one phone\nsmsgw://127.0.0.1:1883?v=1&token=secret-token\n'));
  for (const [what, args, message] of refusals) {
    it(`when given ${what}, then it refuses in a message that never repeats the token (exit 2)`, async () => {
      const result = await runCli(['simulate', ...args], env);
      expectRefused(result, 2);
      expect(result.stderr).to.contain(message);
      expect(result.stderr).not.to.contain('secret-token');
    });
  }

  it('when the same device is given twice, then it refuses rather than have the two connections push each other off', async () => {
    const { device, token } = await registerDevice(gateway, tenant, 'phone four');
    const url = formatPairingUrl({ host: '127.0.0.1', port: gateway.mqttPort, deviceId: device.id, token });
    const result = await runCli(['simulate', '--pairing', url, '--device', device.id, '--token', token], env);
    expectRefused(result, 2);
    expect(result.stderr).to.contain(`device ${device.id} is given twice`);
  });
});
