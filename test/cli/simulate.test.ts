// `sms-gateway simulate` finds the gateway where PORT and MQTT_PORT say it is, and when it is not
// there says so in one line (exit status 1), without a stack trace.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Gateway } from '../../src/gateway.ts';
import { expectRefused, GatewayProcess, jsonOf, killChildren, runCli, tempDataDir } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { freePort } from '../support/ports.ts';

/** A port nothing listens on (taken from the system, then released). */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));
  expect(lines, stderr).to.have.length(1);
  return lines[0]!;
}

describe('cli: simulate', function () {
  this.timeout(60_000);
  let gateway: Gateway;
  let tenant: Tenant;
  const state = tempDataDir('simulate');

  before(async () => {
    gateway = await startGateway();
    tenant = await createTenant(gateway);
  });
  after(async () => {
    killChildren();
    state.remove();
    await gateway.stop();
  });

  it('when PORT and MQTT_PORT name the gateway, then its simulated devices register and connect there', async () => {
    const result = await runCli(
      ['simulate', '--devices', '2', '--key', tenant.key, '--duration', '8', '--state', join(state.dir, 'devices.json'), '--json'],
      { PORT: String(gateway.httpPort), MQTT_PORT: String(gateway.mqttPort) },
    );
    expect(result.code, result.transcript).to.equal(0);
    const body = jsonOf(result);
    expect(body.devices, result.transcript).to.have.length(2);
    expect(body.connected, result.transcript).to.equal(2);
    const listed = await tenant.api.get('/devices');
    expect(listed.body.data.map((device: { id: string }) => device.id)).to.include.members(body.devices);
  });

  it('when the account runs a canary round, then its simulated phones carry the canaries to one another and every probe passes', async () => {
    const own = await createTenant(gateway);
    const run = new GatewayProcess(['simulate', '--devices', '2', '--key', own.key, '--state', join(state.dir, 'canary.json')], {
      PORT: String(gateway.httpPort),
      MQTT_PORT: String(gateway.mqttPort),
    });
    try {
      await run.waitFor('devices online', 30_000, () => (/2 device\(s\) online/.test(run.stderr) ? true : undefined));
      // A round needs each SIM's number, which the phones' first heartbeats bring.
      const round = await eventually('a canary round started', async () => {
        const reply = await own.api.post('/account/canary/run');
        return reply.status === 202 ? reply.body : undefined;
      }, 15_000, 100);
      expect(round.probes, JSON.stringify(round)).to.have.length(2);
      const senders: string[] = round.probes.map((probe: { sender_device_id: string }) => probe.sender_device_id);
      await eventually('both canaries arrived', async () => {
        const healths = await Promise.all(senders.map((id) => own.api.get(`/devices/${id}/health`)));
        const results = healths.flatMap((health) => health.body.canary.filter((probe: { role: string }) => probe.role === 'sender').map((probe: { result: string }) => probe.result));
        return results.length === 2 && results.every((result) => result === 'passed');
      }, 20_000, 100);
    } finally {
      run.kill();
    }
  });

  it('when a remembered device is refused at CONNECT, then it says so in one line per device, keeps trying, and --duration still ends the run', async () => {
    const stateFile = join(state.dir, 'stale.json');
    const stale = { device_id: randomUUID(), token: 'sgd_not-a-valid-token', name: 'deleted phone' };
    writeFileSync(stateFile, JSON.stringify([stale]));
    const result = await runCli(['simulate', '--devices', '1', '--key', tenant.key, '--duration', '3', '--state', stateFile, '--json'], {
      PORT: String(gateway.httpPort),
      MQTT_PORT: String(gateway.mqttPort),
    });
    expect(result.code, result.transcript).to.equal(0);
    expect(result.stderr, result.transcript).to.contain(`device ${stale.device_id} refused: not authorized`);
    expect(jsonOf(result).devices, result.transcript).to.deep.equal([]);
  });

  it('when nothing listens on PORT, then one line names the API URL and says connection refused (exit 1)', async () => {
    const port = await freePort();
    const result = await runCli(['simulate', '--devices', '1', '--key', tenant.key], { PORT: String(port), MQTT_PORT: String(gateway.mqttPort) });
    expectRefused(result, 1);
    expect(oneLine(result.stderr)).to.equal(
      `error: cannot reach the gateway at http://127.0.0.1:${port}: connection refused (is it running? set --api/--mqtt or PORT/MQTT_PORT)`,
    );
  });

  it('when the API answers but nothing listens on MQTT_PORT, then one line names the broker URL (exit 1)', async () => {
    const port = await freePort();
    const result = await runCli(['simulate', '--devices', '1', '--key', tenant.key], { PORT: String(gateway.httpPort), MQTT_PORT: String(port) });
    expectRefused(result, 1);
    expect(oneLine(result.stderr)).to.equal(
      `error: cannot reach the gateway at mqtt://127.0.0.1:${port}: connection refused (is it running? set --api/--mqtt or PORT/MQTT_PORT)`,
    );
  });

  it('when PORT or MQTT_PORT is 0, then one line says the gateway picks a free port at start and which flag gives it, never naming port 0 (exit 2)', async () => {
    const before = (await tenant.api.get('/devices')).body.data.length;
    const api = await runCli(['simulate', '--devices', '1', '--key', tenant.key], { PORT: '0', MQTT_PORT: String(gateway.mqttPort) });
    expectRefused(api, 2);
    expect(oneLine(api.stderr)).to.equal(
      'error: PORT is 0, so the gateway picks a free port when it starts and this command cannot know it: pass --api http://127.0.0.1:PORT with the port the gateway logged at start (its "gateway listening" line)',
    );
    const broker = await runCli(['simulate', '--devices', '1', '--key', tenant.key], { PORT: String(gateway.httpPort), MQTT_PORT: '0' });
    expectRefused(broker, 2);
    expect(oneLine(broker.stderr)).to.match(/^error: MQTT_PORT is 0, so the gateway picks a free port when it starts .*: pass --mqtt mqtt:\/\/127\.0\.0\.1:PORT with/).and.not.to.contain(':0');
    expect((await tenant.api.get('/devices')).body.data, 'no device registered').to.have.length(before);
  });

  it('when --state cannot be written, then one line names it (exit 2) and no device is registered', async () => {
    const file = join(state.dir, 'a-file');
    writeFileSync(file, '');
    const before = (await tenant.api.get('/devices')).body.data.length;
    const result = await runCli(['simulate', '--devices', '1', '--key', tenant.key, '--duration', '2', '--state', join(file, 'devices.json')], {
      PORT: String(gateway.httpPort),
      MQTT_PORT: String(gateway.mqttPort),
    });
    expectRefused(result, 2);
    expect(oneLine(result.stderr)).to.contain(`--state ${join(file, 'devices.json')} cannot be used (ENOTDIR)`);
    expect((await tenant.api.get('/devices')).body.data).to.have.length(before);
  });

  for (const [name, value] of [
    ['PORT', 'abc'],
    ['MQTT_PORT', '70000'],
  ] as const) {
    it(`when ${name} is "${value}", then one line names ${name} (exit 2)`, async () => {
      const result = await runCli(['simulate', '--devices', '1', '--key', tenant.key], { [name]: value });
      expectRefused(result, 2);
      expect(oneLine(result.stderr)).to.contain(`${name}: must be a port number`);
    });
  }
});
