// The one line the gateway gives for a phone, pasted into Termux as docs/agent-termux.md shows
// it: on a bare Termux (no Node.js, no termux-api) it installs both with pkg, installs the agent
// from the gateway with no registry, pairs it and starts it, and writes the guide's boot script.
// The phone then sends an SMS and reports a received one; after a "reboot" (the agent stopped,
// the guide's boot script run as written) it sends again. A Termux-like sandbox (temporary HOME
// and PREFIX, a stand-in pkg and Termux:API commands), a real gateway, real curl and npm.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureAgentPacked } from '../../scripts/agent-pack.js';
import { liftLimits } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { docBlock, filledIn } from './support/doc-blocks.ts';
import { TermuxSandbox } from './support/termux-sandbox.ts';

const GUIDE = 'docs/agent-termux.md';
const GUIDE_GATEWAY = 'https://gateway.example.com';
const GUIDE_PAIRING = 'smsgw://gateway.example.com:1883?v=1&device=...&token=...';
const RECIPIENT = '+79161234567';

/** Now as Termux:API writes times: the phone's local time, to the second. */
function termuxNow(): string {
  const now = new Date();
  const two = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())} ${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}`;
}

describe('device agent: installed on a phone with the gateway\'s one line', () => {
  const fx = useGateway();
  let sandbox: TermuxSandbox;

  before(async function () {
    this.timeout(120_000);
    // Once for the file: what `npm run build` makes and the gateway serves.
    await ensureAgentPacked();
  });
  beforeEach(async () => {
    sandbox = await TermuxSandbox.create({ agent: 'pkg' });
  });
  afterEach(() => sandbox.remove());

  it('when the guide\'s install line is pasted into a bare Termux, then the phone sends and receives SMS, and after a reboot its boot script brings it back to send again', async function () {
    this.timeout(180_000);
    const registered = await fx.tenant.api.post('/devices', { name: 'android phone' });
    expect(registered.status).to.equal(201);
    const deviceId = registered.body.device.id as string;
    const token = registered.body.credentials.password as string;
    await liftLimits(fx.gateway, fx.tenant, deviceId);

    // The line the gateway answers is the guide's, with this gateway's address and pairing URL.
    const line = registered.body.install_command as string;
    const guideLine = filledIn(docBlock(GUIDE, 'install-line'), [
      [GUIDE_GATEWAY, fx.baseUrl],
      [GUIDE_PAIRING, registered.body.pairing_url as string],
    ]).trim();
    expect(line).to.equal(guideLine);

    const installed = await sandbox.run(line);
    expect(installed.code, installed.output).to.equal(0);
    expect(installed.output).to.match(/paired and connected/);
    expect(installed.output, 'the token is never printed').not.to.contain(token);
    expect(sandbox.pkgCalls(), 'Node.js and termux-api came from pkg').to.deep.equal(['install -y nodejs termux-api']);
    const [agentPid] = sandbox.agentPids();
    expect(agentPid, 'the agent runs after the script ended').to.be.a('number');
    expect(readFileSync(`/proc/${agentPid}/cmdline`, 'utf8'), 'no pairing URL on its command line').not.to.contain(token);

    const online = async () => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.is_online === true;
    const sendOne = async (message: string) => {
      const id = (await fx.tenant.api.post('/sms', { phone: RECIPIENT, message })).body.id as string;
      await eventually(`"${message}" to be sent`, async () => (await fx.tenant.api.get(`/sms/${id}`)).body.status === 'sent', 30_000);
      const sends = (await sandbox.phone.commandsRun()).filter((call) => call.command === 'termux-sms-send');
      expect(sends.at(-1)).to.deep.include({ stdin: message });
      expect(sends.at(-1)!.args).to.include(RECIPIENT);
    };
    await eventually('the device to be online', online, 10_000);
    await sendOne('sent from Termux');

    // A received SMS: the agent reads the inbox every few seconds. Once it has read it twice it
    // knows where "now" is (a first run hands over nothing already there).
    const inboxReads = async () => (await sandbox.phone.commandsRun()).filter((call) => call.command === 'termux-sms-list').length;
    await eventually('the agent to read the inbox twice', async () => (await inboxReads()) >= 2, 30_000);
    await sandbox.phone.setInbox([
      { _id: 7, threadid: 3, type: 'inbox', read: false, address: '+79161234500', number: '+79161234500', received: termuxNow(), body: 'received by the phone' },
    ]);
    await eventually(
      'the received SMS in the gateway',
      async () => ((await fx.tenant.api.get('/incoming')).body.data as { message: string }[]).some((sms) => sms.message === 'received by the phone'),
      30_000,
    );

    // Reboot: Android stops the agent; Termux:Boot runs the guide's boot script.
    const bootFile = join(sandbox.home, '.termux', 'boot', 'sms-gateway-agent');
    const writtenByInstall = readFileSync(bootFile, 'utf8');
    await sandbox.stopAgents();
    await eventually('the device to be offline', async () => !(await online()), 10_000);
    const created = await sandbox.run(docBlock(GUIDE, 'boot-script'));
    expect(created.code, created.output).to.equal(0);
    expect(readFileSync(bootFile, 'utf8'), 'the install script wrote the guide\'s boot script').to.equal(writtenByInstall);
    const logBefore = sandbox.log().length;
    sandbox.start('sh', [bootFile]);
    await eventually('the agent started at boot to connect', () => /connected to the gateway/.test(sandbox.log(logBefore)), 30_000);
    await eventually('the device to be online again', online, 10_000);
    await sendOne('sent after a reboot');
    expect(sandbox.log(), 'the log carries no token, no message text').not.to.contain(token).and.not.to.contain('sent after a reboot');
  });

  it('when the line is pasted again with a new token, then the running agent gives way to one paired with the new token', async function () {
    this.timeout(180_000);
    const registered = await fx.tenant.api.post('/devices', { name: 'phone with a new token' });
    const deviceId = registered.body.device.id as string;
    const first = await sandbox.run(registered.body.install_command as string);
    expect(first.code, first.output).to.equal(0);
    const [oldAgent] = sandbox.agentPids();

    const renewed = await fx.tenant.api.post(`/devices/${deviceId}/token`, {});
    expect(renewed.status).to.equal(200);
    expect(renewed.body.install_command).to.contain(encodeURIComponent(renewed.body.credentials.password as string));
    const second = await sandbox.run(renewed.body.install_command as string);
    expect(second.code, second.output).to.equal(0);
    expect(second.output).to.match(/stopping the agent already running/).and.to.match(/paired and connected/);
    expect(sandbox.agentPids()).to.have.length(1).and.not.to.include(oldAgent);
    expect(sandbox.pkgCalls(), 'installed once').to.have.length(1);
    expect((await fx.tenant.api.get(`/devices/${deviceId}`)).body).not.to.have.property('install_command');
  });
});
