// The systemd unit deploy/agent/sms-gateway-agent@.service, run the way systemd runs it: its
// ExecStart line, as the unit file has it, with what systemd puts in ($$ becomes $; the
// environment of Environment= and then EnvironmentFile=, which wins; STATE_DIRECTORY from
// StateDirectory=), and the environment file docs/agent-modem.md writes. The agent drives a modem
// stand-in on a pseudo-terminal and sends a real gateway's SMS; restarted (systemd's Restart=,
// or a reboot) it comes back from its state directory and sends again.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { liftLimits } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { docBlock, filledIn } from './support/doc-blocks.ts';
import { ModemStandin } from './support/modem-standin.ts';
import { EXIT_NEEDS_OPERATOR } from '../../agent/src/cli/main.ts';

const UNIT = 'deploy/agent/sms-gateway-agent@.service';
const GUIDE = 'docs/agent-modem.md';
const INSTANCE = 'modem1';
const RUNNER = fileURLToPath(new URL('../../agent/src/cli/run.ts', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** The [Service] section's settings, each name with its values in order. */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    if (section !== 'Service') continue;
    const at = line.indexOf('=');
    const name = line.slice(0, at);
    settings.set(name, [...(settings.get(name) ?? []), line.slice(at + 1)]);
  }
  return settings;
}

/** Words as systemd splits a command line or an Environment= value: whitespace, with '' and "" quoting. */
function words(text: string): string[] {
  const found: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') current += text[++index]!;
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current ??= '';
    } else if (/\s/.test(char)) {
      if (current !== undefined) found.push(current);
      current = undefined;
    } else if (char === '\\') {
      current = (current ?? '') + text[++index]!;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (quote) throw new Error(`unbalanced quote in ${text}`);
  if (current !== undefined) found.push(current);
  return found;
}

/** Specifiers (%i, %%) and, in a command line, $$; a single $ would be systemd's own expansion, which the unit does not use. */
function expanded(value: string, command: boolean): string {
  const specified = value.replace(/%([i%])/g, (_, letter: string) => (letter === 'i' ? INSTANCE : '%'));
  if (!command) return specified;
  if (/\$(?!\$)/.test(specified.replaceAll('$$', ''))) throw new Error(`ExecStart uses systemd's own $ expansion, which this test does not model: ${value}`);
  return specified.replaceAll('$$', '$');
}

/** An EnvironmentFile: VAR=VALUE lines, # comments, values optionally quoted. */
function environmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const at = trimmed.indexOf('=');
    env[trimmed.slice(0, at).trim()] = words(trimmed.slice(at + 1))[0] ?? '';
  }
  return env;
}

describe('device agent: the systemd unit for a modem, as systemd runs it', () => {
  const fx = useGateway();
  let root: string;
  let standin: ModemStandin;
  const running: ChildProcess[] = [];

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'agent-systemd-'));
    standin = await ModemStandin.start({ pin: '1234' });
  });
  afterEach(async () => {
    for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await standin.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The unit's ExecStart and the environment systemd gives it, with the guide's environment file. */
  function service(pairingUrl: string, overrides: Record<string, string> = {}) {
    const settings = serviceSettings(readFileSync(UNIT, 'utf8'));
    const [execStart] = settings.get('ExecStart') ?? [];
    expect(execStart, 'one ExecStart').to.be.a('string');
    const [stateDirectory] = settings.get('StateDirectory') ?? [];
    // The environment file exactly as the guide writes it, with its placeholders made real.
    const setup = docBlock(GUIDE, 'systemd-setup');
    const envBlock = /<<'ENV'\n([\s\S]*?)\nENV\n/.exec(setup)?.[1];
    expect(envBlock, 'the guide writes the environment file with a heredoc').to.be.a('string');
    const envFileText = filledIn(envBlock!, [
      ['<pairing URL from the gateway>', pairingUrl],
      ['/dev/serial/by-id/usb-HUAWEI_Mobile-if02-port0', standin.agentPath],
    ]);
    const envFiles = (settings.get('EnvironmentFile') ?? []).map((value) => expanded(value, false));
    expect(envFiles).to.deep.equal([`/etc/sms-gateway-agent/${INSTANCE}.env`]);
    expect(setup, 'the guide writes the file the unit reads').to.contain(`tee ${envFiles[0]} `);

    // /var/lib of this machine, and the agent's command on the PATH systemd gives services.
    const stateDir = join(root, 'var', 'lib', expanded(stateDirectory!, false));
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const bin = join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'sms-gateway-agent'), `#!/bin/sh\nexec '${process.execPath}' --import '${TSX}' '${RUNNER}' "$@"\n`);
    chmodSync(join(bin, 'sms-gateway-agent'), 0o755);
    const environment: NodeJS.ProcessEnv = {
      PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      HOME: stateDir,
      ...Object.fromEntries((settings.get('Environment') ?? []).flatMap((value) => words(expanded(value, false))).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
      ...environmentFile(envFileText),
      ...overrides,
      STATE_DIRECTORY: stateDir,
    };
    const [command, ...args] = words(expanded(execStart!, true));
    return { command: command!, args, environment, stateDir, settings };
  }

  it('when the guide\'s environment file names the modem, then ExecStart runs the agent paired, it sends an SMS through the modem, and started again it sends the next one', async function () {
    this.timeout(90_000);
    const registered = await fx.tenant.api.post('/devices', { name: 'modem on a Pi' });
    const deviceId = registered.body.device.id as string;
    await liftLimits(fx.gateway, fx.tenant, deviceId);

    const { command, args, environment, stateDir } = service(registered.body.pairing_url as string);

    const online = async () => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.is_online === true;
    const startService = () => {
      const child = spawn(command, args, { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      running.push(child);
      return { child, output: () => output, exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
    };
    const sendOne = async (message: string, submitsBefore: number) => {
      const id = (await fx.tenant.api.post('/sms', { phone: '+79161234567', message })).body.id as string;
      await eventually('the modem to be given the SMS', () => standin.submits.length > submitsBefore, 20_000);
      await eventually('the SMS to be sent', async () => (await fx.tenant.api.get(`/sms/${id}`)).body.status === 'sent', 10_000);
    };

    const first = startService();
    await eventually('the agent to connect', () => /connected to the gateway/.test(first.output()), 30_000).catch((error: Error) => {
      throw new Error(`${error.message}; the agent printed:\n${first.output()}`);
    });
    expect(standin.pinEntered, 'the PIN from the environment file').to.equal(true);
    await eventually('the device to be online', online, 10_000);
    await sendOne('through the modem', 0);
    expect(standin.submits[0]!.decoded.text).to.equal('through the modem');
    expect(first.output(), 'no token in the log').not.to.contain(registered.body.credentials.password as string);

    first.child.kill('SIGTERM');
    expect(await first.exited, 'systemctl stop ends it cleanly').to.equal(0);
    expect(existsSync(join(stateDir, 'journal.jsonl')), 'its journal is in STATE_DIRECTORY').to.equal(true);

    const second = startService();
    await eventually('the restarted agent to connect', () => /connected to the gateway/.test(second.output()), 30_000);
    await eventually('the device to be online again', online, 10_000);
    await sendOne('after a restart', 1);
    second.child.kill('SIGTERM');
    expect(await second.exited).to.equal(0);
  });

  it('when the environment file holds a wrong PIN, then the agent tries it once and exits with a status the unit does not restart on', async function () {
    this.timeout(60_000);
    const registered = await fx.tenant.api.post('/devices', { name: 'modem with a wrong PIN' });
    const { command, args, environment, settings } = service(registered.body.pairing_url as string, { SMS_GATEWAY_AGENT_PIN: '9999' });
    const child = spawn(command, args, { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(output).to.match(/refused the PIN/);
    expect(standin.commands.filter((sent) => sent.startsWith('AT+CPIN='))).to.deep.equal(['AT+CPIN="9999"']);
    // Restart=always would otherwise try it again every RestartSec, and the third try locks the card.
    const prevented = (settings.get('RestartPreventExitStatus') ?? []).flatMap((value) => words(value));
    expect(prevented, `exit status ${code} is not restarted`).to.include(String(code));
    expect(code).to.equal(EXIT_NEEDS_OPERATOR);
  });
});
