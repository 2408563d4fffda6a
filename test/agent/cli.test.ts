// `sms-gateway-agent` as a user runs it: help, every bad flag refused with a clear line and exit
// code 2, and a real run with the simulated radio against a gateway, stopped by SIGTERM.
import { expect } from 'chai';
import { DEFAULT_POLL_INTERVAL_MS } from '../../agent/src/radio/termux/termux-radio.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatPairingUrl } from '../../agent/src/pairing.ts';
import { liftLimits } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';

const RUNNER = 'agent/src/cli/run.ts';
const DEVICE = '6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab';
const PAIRING = formatPairingUrl({ host: '127.0.0.1', port: 1, deviceId: DEVICE, token: 'sgd_not_a_real_token' });

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const started = start(args, env);
  const code = await started.exited;
  return { code, output: started.output() };
}

/** Resolves once the run's output matches `pattern`. */
async function printed(started: Run, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(started.output())) {
    if (Date.now() > deadline) throw new Error(`the agent did not print ${pattern} within ${timeoutMs} ms; it printed:\n${started.output()}`);
    await new Promise((resolve) => started.child.stderr!.once('data', resolve).once('close', resolve));
  }
}

describe('device agent: the command line', () => {
  it('when compiled as the package ships it, then its own bin runs: --version prints the package version', async function () {
    this.timeout(120_000);
    const build = spawn('npm', ['run', 'build', '-w', 'agent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((resolve) => build.on('exit', resolve)), output).to.equal(0);
    const version = spawn(process.execPath, ['agent/bin/sms-gateway-agent.js', '--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let printedVersion = '';
    version.stdout.on('data', (chunk: Buffer) => (printedVersion += chunk.toString()));
    expect(await new Promise((resolve) => version.on('exit', resolve))).to.equal(0);
    expect(printedVersion.trim()).to.equal(JSON.parse(readFileSync('agent/package.json', 'utf8')).version);
  });

  it('when asked for --help, then it prints the usage with the three backends and exits 0', async () => {
    const { code, output } = await run(['--help']);
    expect(code).to.equal(0);
    expect(output).to.contain('--pairing').and.contain('termux').and.contain('modem').and.contain('simulate');
  });

  it('when asked for --help, then the --poll-interval default it names is the one the Termux radio uses and its guide says', async () => {
    const { output } = await run(['--help']);
    const seconds = DEFAULT_POLL_INTERVAL_MS / 1000;
    expect(output).to.match(new RegExp(`--poll-interval SECONDS .*\\(default ${seconds}\\)`));
    expect(readFileSync('docs/agent-termux.md', 'utf8')).to.contain(`(${seconds} by default)`);
  });

  const refusals: [string, string[], Record<string, string>, RegExp][] = [
    ['no pairing URL and nothing saved', ['--backend', 'simulate', '--state-dir', '/nonexistent/agent-state'], {}, /a pairing URL is needed/],
    ['no backend', ['--pairing', PAIRING], {}, /--backend is needed/],
    ['an unknown backend', ['--pairing', PAIRING, '--backend', 'bluetooth'], {}, /backend must be one of termux, modem, simulate/],
    ['a pairing URL of another scheme', ['--pairing', 'https://example.com', '--backend', 'simulate'], {}, /must start with smsgw:\/\//],
    ['the modem backend without a serial port', ['--pairing', PAIRING, '--backend', 'modem'], {}, /needs the serial port/],
    ['a PIN of letters', ['--pairing', PAIRING, '--backend', 'modem', '--serial', '/dev/ttyUSB0', '--pin', 'abcd'], {}, /PIN must be 4 to 8 digits/],
    ['a modem flag with another backend', ['--pairing', PAIRING, '--backend', 'termux', '--serial', '/dev/ttyUSB0'], {}, /--serial is for the modem backend only/],
    ['a heartbeat interval of zero', ['--pairing', PAIRING, '--backend', 'simulate', '--heartbeat-interval', '0'], {}, /--heartbeat-interval \(seconds\) must be a whole number from 10/],
    ['an unknown flag', ['--pairing', PAIRING, '--backend', 'simulate', '--colour', 'blue'], {}, /Unknown option '--colour'/],
    ['a missing CA file', ['--pairing', PAIRING, '--backend', 'simulate', '--ca', '/nonexistent/ca.pem'], {}, /--ca \/nonexistent\/ca.pem: no such file/],
  ];
  for (const [what, args, env, message] of refusals) {
    it(`when given ${what}, then it says so in one line and exits 2, never printing the token`, async () => {
      const { code, output } = await run(args, env);
      expect(code, output).to.equal(2);
      expect(output).to.match(message);
      expect(output).not.to.contain('sgd_not_a_real_token');
    });
  }

  it('when a modem is started with a PIN, then the saved device keeps the serial port but never the PIN', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-pin-'));
    try {
      // No modem on that port: the run ends, after saving how the device was started.
      const { code } = await run(['--pairing', PAIRING, '--backend', 'modem', '--serial', '/nonexistent/ttyUSB9', '--pin', '4321', '--state-dir', dir]);
      expect(code).to.equal(1);
      const saved = readFileSync(join(dir, 'device.json'), 'utf8');
      expect(JSON.parse(saved)).to.include({ backend: 'modem', serial: '/nonexistent/ttyUSB9' });
      expect(saved).not.to.contain('4321');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a config file names the same device twice, then it is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
    try {
      const file = join(dir, 'devices.json');
      writeFileSync(file, JSON.stringify({ devices: [{ pairing: PAIRING, backend: 'simulate' }, { pairing: PAIRING, backend: 'simulate', stateDir: join(dir, 'b') }] }));
      const { code, output } = await run(['--config', file]);
      expect(code).to.equal(2);
      expect(output).to.match(/names device .* twice/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('when run against a gateway with the simulated radio', () => {
    const fx = useGateway();
    let stateDir: string;

    beforeEach(() => {
      stateDir = mkdtempSync(join(tmpdir(), 'agent-state-'));
    });

    afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

    it('then it pairs from the environment with the pairing URL the gateway answered, delivers an SMS, keeps a second copy out of its state directory, and stops on SIGTERM', async () => {
      // Registered as a user does it, and paired with the URL the gateway answers.
      const registered = await fx.tenant.api.post('/devices', { name: 'cli agent' });
      expect(registered.status).to.equal(201);
      const device = registered.body.device as { id: string };
      const token = registered.body.credentials.password as string;
      const pairing = registered.body.pairing_url as string;
      await liftLimits(fx.gateway, fx.tenant, device.id);
      const agent = start(['--backend', 'simulate', '--state-dir', stateDir], { SMS_GATEWAY_AGENT_PAIRING: pairing });
      try {
        await printed(agent, /connected to the gateway/);
        expect(agent.output()).not.to.contain(token);

        const second = await run(['--backend', 'simulate', '--state-dir', stateDir], { SMS_GATEWAY_AGENT_PAIRING: pairing });
        expect(second.code).to.equal(1);
        expect(second.output).to.match(/another agent \(process \d+\) runs with the state directory/);

        const id = (await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'from the command line' })).body.id;
        await printed(agent, new RegExp(`reported sms=${id} status=delivered`));
        expect((await fx.tenant.api.get(`/sms/${id}`)).body.status).to.equal('delivered');
        expect(agent.output(), 'logs carry no message text and no whole number').not.to.contain('from the command line').and.not.to.contain('+79161234567');

        agent.child.kill('SIGTERM');
        expect(await agent.exited).to.equal(0);
        expect(existsSync(join(stateDir, 'agent.lock')), 'the lock is released').to.equal(false);
        expect(existsSync(join(stateDir, 'journal.jsonl')), 'the journal is kept').to.equal(true);
        expect(statSync(join(stateDir, 'device.json')).mode & 0o777, 'the saved pairing is readable by its user only').to.equal(0o600);
        expect(statSync(stateDir).mode & 0o777).to.equal(0o700);

        // Started again with the state directory alone, as a boot script does: it remembers the device.
        const again = start(['--state-dir', stateDir]);
        try {
          await printed(again, /connected to the gateway/);
          again.child.kill('SIGTERM');
          expect(await again.exited).to.equal(0);
        } finally {
          again.child.kill('SIGKILL');
        }
      } finally {
        agent.child.kill('SIGKILL');
      }
    });

    it('then a config file runs several devices in one process, each with its own state directory, both online', async () => {
      const devices = await Promise.all(['first', 'second'].map((name) => fx.gateway.services.devices.register(fx.tenant.accountId, name)));
      const file = join(stateDir, 'devices.json');
      writeFileSync(
        file,
        JSON.stringify({
          devices: devices.map(({ device, token }, index) => ({
            pairing: formatPairingUrl({ host: '127.0.0.1', port: fx.gateway.mqttPort, deviceId: device.id, token }),
            backend: 'simulate',
            stateDir: join(stateDir, `device-${index}`),
          })),
        }),
      );
      const agent = start(['--config', file]);
      try {
        for (const { device } of devices) {
          await printed(agent, new RegExp(`connected to the gateway device=${device.id.slice(0, 8)}`));
          expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.is_online).to.equal(true);
        }
        agent.child.kill('SIGTERM');
        expect(await agent.exited).to.equal(0);
      } finally {
        agent.child.kill('SIGKILL');
      }
    });
  });
});
