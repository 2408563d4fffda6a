// Back after a reboot: a phone paired as docs/agent-termux.md section 4 shows, then started by
// the Termux:Boot script of section 6, both run exactly as the guide writes them, comes online
// paired, with no pairing URL given again. The guide's blocks are read from the guide itself.
import { expect } from 'chai';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { docBlock, filledIn } from './support/doc-blocks.ts';
import { TermuxSandbox } from './support/termux-sandbox.ts';

const GUIDE = 'docs/agent-termux.md';
const GUIDE_PAIRING = 'smsgw://gateway.example.com:1883?v=1&device=...&token=...';

describe('device agent: the Termux guide\'s pairing, then its boot script', () => {
  const fx = useGateway();
  let sandbox: TermuxSandbox;

  beforeEach(async () => {
    sandbox = await TermuxSandbox.create({ agent: 'source' });
  });
  afterEach(() => sandbox.remove());

  it('when the phone lost power with the agent running, and after the reboot another process has its id, then the boot script still starts it', async function () {
    // Each wait below has its own bound; together, on a machine running four test processes, they may take minutes.
    this.timeout(300_000);
    const registered = await fx.tenant.api.post('/devices', { name: 'termux phone' });
    const deviceId = registered.body.device.id as string;
    const pair = filledIn(docBlock(GUIDE, 'pair'), [[GUIDE_PAIRING, registered.body.pairing_url as string]]);
    const pairing = sandbox.start('bash', ['-c', pair]);
    await eventually('the paired agent to connect', () => /connected to the gateway/.test(pairing.output()), 45_000);
    // Power gone: no chance to release the lock.
    for (const pid of sandbox.agentPids()) process.kill(pid, 'SIGKILL');
    await sandbox.finished(pairing);
    const stateDir = join(sandbox.home, '.sms-gateway-agent', readdirSync(join(sandbox.home, '.sms-gateway-agent'))[0]!);
    const lock = join(stateDir, 'agent.lock');
    // The lock as it was before the reboot, naming an id that a live process (this one) has now.
    writeFileSync(lock, `${process.pid}\n`);
    const beforeTheBoot = new Date(Date.now() - 1000 * 60 * 60 * 24 * 365 * 20);
    utimesSync(lock, beforeTheBoot, beforeTheBoot);

    const created = await sandbox.run(docBlock(GUIDE, 'boot-script'));
    expect(created.code, created.output).to.equal(0);
    const boot = sandbox.start('sh', [join(sandbox.home, '.termux', 'boot', 'sms-gateway-agent')]);
    await eventually('the agent started at boot to connect', () => /connected to the gateway/.test(sandbox.log()) || boot.exitCode !== null, 45_000);
    expect(sandbox.log()).to.match(/connected to the gateway/).and.not.to.match(/another agent/);
    await eventually('the device to be online', async () => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.is_online === true, 10_000);
    await sandbox.stopAgents();
  });

  const pairings: [string, string][] = [
    ['in the state directory the agent picks itself', ''],
    ['with --state-dir ~/.sms-gateway-agent, as the guide had it before', ' --state-dir ~/.sms-gateway-agent'],
  ];
  for (const [how, extra] of pairings) {
    it(`when paired as section 4 shows (${how}) and stopped, then the boot script of section 6 starts it paired, and the device comes online`, async function () {
      this.timeout(300_000);
      const registered = await fx.tenant.api.post('/devices', { name: 'termux phone' });
      const deviceId = registered.body.device.id as string;
      const online = async () => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.is_online === true;

      const pair = filledIn(docBlock(GUIDE, 'pair'), [[GUIDE_PAIRING, registered.body.pairing_url as string]]).trimEnd() + extra;
      const pairing = sandbox.start('bash', ['-c', pair]);
      await eventually('the paired agent to connect', () => /connected to the gateway/.test(pairing.output()), 45_000);
      await eventually('the device to be online', online, 10_000);
      await sandbox.stopAgents();
      expect((await sandbox.finished(pairing)).code, 'Ctrl-C or a shutdown ends it cleanly').to.equal(0);
      await eventually('the device to be offline', async () => !(await online()), 10_000);

      const created = await sandbox.run(docBlock(GUIDE, 'boot-script'));
      expect(created.code, created.output).to.equal(0);
      const bootScript = join(sandbox.home, '.termux', 'boot', 'sms-gateway-agent');
      expect(statSync(bootScript).mode & 0o100, 'executable').to.equal(0o100);

      // Termux:Boot runs the file; its first line names Termux's own sh, which here is the machine's.
      const boot = sandbox.start('sh', [bootScript]);
      boot.once('exit', (code) => {
        if (code !== null && code !== 0) process.stderr.write(`boot script exited ${code}: ${sandbox.log()}\n`);
      });
      await eventually('the agent started at boot to connect', () => /connected to the gateway/.test(sandbox.log()), 45_000);
      expect(sandbox.log()).not.to.match(/a pairing URL is needed/);
      await eventually('the device to be online again', online, 10_000);
      await sandbox.stopAgents();
      expect((await sandbox.finished(boot)).code).to.equal(0);
    });
  }
});
