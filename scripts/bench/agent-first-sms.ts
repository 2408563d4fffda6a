// How long a newcomer takes from a running gateway to a first SMS through the device agent, doing
// what the guides say (npm ci itself, and what Termux's pkg downloads, are not measured here):
//
// - Termux (docs/agent-termux.md): register the device, paste the install line into Termux (the
//   package downloaded from the gateway, npm install, pairing, connection), send an SMS until
//   the gateway says sent. In the sandbox of the tests: a temporary HOME and PREFIX, a stand-in
//   pkg that links this machine's Node.js, Termux:API stand-ins.
// - Modem (docs/agent-modem.md), in this checkout: register, `npx sms-gateway-agent --pairing ...
//   --backend modem --serial ...` against a modem stand-in on a pseudo-terminal, send an SMS.
// - The packing `npm run build` adds: esbuild bundling the agent into its package.
//
//   npx tsx scripts/bench/agent-first-sms.ts
//
// Everything runs on 127.0.0.1 and stops by itself.
import { spawn } from 'node:child_process';
import { ensureAgentPacked } from '../agent-pack.js';
import { ModemStandin } from '../../test/agent/support/modem-standin.ts';
import { TermuxSandbox } from '../../test/agent/support/termux-sandbox.ts';
import { freshDatabase, liftDeviceLimits, printTable, REPO_ROOT, startBenchGateway } from './support.ts';

const started = performance.now();
const since = (from: number) => Math.round(performance.now() - from);

const packStart = performance.now();
await ensureAgentPacked({ force: true });
const packMs = since(packStart);

const database = await freshDatabase('agent_first_sms');
const { gateway, key, baseUrl } = await startBenchGateway(database.url);
const api = async (method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
  for (;;) {
    const response = await fetch(`${baseUrl}/api/ext/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // A loaded machine makes the gateway refuse for a moment (503 overloaded): as a client would, again.
    if (response.status !== 503) return (await response.json()) as Record<string, any>;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const sentWithin = async (message: string): Promise<number> => {
  const from = performance.now();
  const { id } = await api('POST', '/sms', { phone: '+79161234567', message });
  for (;;) {
    if ((await api('GET', `/sms/${id}`)).status === 'sent') return since(from);
    if (performance.now() - from > 120_000) throw new Error(`${message}: not sent within 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const rows: Record<string, string | number>[] = [];
try {
  // Termux.
  {
    const sandbox = await TermuxSandbox.create({ agent: 'pkg' });
    try {
      const from = performance.now();
      const registered = await api('POST', '/devices', { name: 'bench phone' });
      const registerMs = since(from);
      await liftDeviceLimits(baseUrl, key, [registered.device.id]);
      const installFrom = performance.now();
      const installed = await sandbox.run(registered.install_command);
      if (installed.code !== 0) throw new Error(`the install line failed:\n${installed.output}`);
      const installMs = since(installFrom);
      const smsMs = await sentWithin('first from Termux');
      rows.push({ backend: 'termux', 'register (ms)': registerMs, 'install line to connected (ms)': installMs, 'first SMS to sent (ms)': smsMs, 'total (ms)': since(from) });
    } finally {
      await sandbox.remove();
    }
  }
  // Modem.
  {
    const standin = await ModemStandin.start();
    try {
      const from = performance.now();
      const registered = await api('POST', '/devices', { name: 'bench modem' });
      const registerMs = since(from);
      await liftDeviceLimits(baseUrl, key, [registered.device.id]);
      const runFrom = performance.now();
      const agent = spawn('npx', ['sms-gateway-agent', '--pairing', registered.pairing_url, '--backend', 'modem', '--serial', standin.agentPath, '--state-dir', `${REPO_ROOT}/.bench-modem-state-${process.pid}`], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        const check = () => (/connected to the gateway/.test(output) ? resolve() : undefined);
        agent.stderr!.on('data', check);
        agent.stdout!.on('data', check);
        agent.once('exit', (code) => reject(new Error(`the agent exited ${code}:\n${output}`)));
      });
      const connectMs = since(runFrom);
      const smsMs = await sentWithin('first from the modem');
      rows.push({ backend: 'modem', 'register (ms)': registerMs, 'install line to connected (ms)': `${connectMs} (npx, no install)`, 'first SMS to sent (ms)': smsMs, 'total (ms)': since(from) });
      agent.kill('SIGTERM');
      await new Promise((resolve) => agent.once('exit', resolve));
      const { rmSync } = await import('node:fs');
      rmSync(`${REPO_ROOT}/.bench-modem-state-${process.pid}`, { recursive: true, force: true });
    } finally {
      await standin.close();
    }
  }
} finally {
  await gateway.stop();
  await database.drop();
}
printTable('A first SMS through the device agent, following the guides (after npm ci)', rows);
printTable('Packing the agent (part of npm run build)', [{ 'esbuild bundle and tgz (ms)': packMs }]);
process.stderr.write(`whole run: ${since(started)} ms\n`);
process.exit(0);
