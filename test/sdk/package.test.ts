// The TypeScript SDK as an integrator gets it from the repository: `npm pack ./sdk/typescript`
// builds dist/ (its prepack script), the tarball installs into a project of its own without the
// registry (it has no dependencies), and a script there imports it by name and calls a running
// gateway. Its types resolve too: a consumer in TypeScript checks against the installed package.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, output }));
  });
}

const SCRIPT = `
import { Client, UnauthorizedError, encrypt, decrypt } from '@sms-gateway/sdk';
const client = new Client({ baseUrl: process.env.SMS_GATEWAY_URL, apiKey: process.env.SMS_GATEWAY_KEY });
const devices = await client.devices.list();
const created = await client.keys.create({ name: 'from the tarball', permissions: ['sms:read'] });
const reader = new Client({ baseUrl: process.env.SMS_GATEWAY_URL, apiKey: created.key });
const before = (await reader.listSms()).data.length;
const revoked = await client.keys.revoke(created.id);
const after = await reader.listSms().then(() => 'still works', (error) => (error instanceof UnauthorizedError ? 'refused' : String(error)));
const opened = await decrypt(await encrypt('hello', 'passphrase', { iterations: 10000 }), 'passphrase');
console.log(JSON.stringify({ devices: devices.data.map((device) => device.id), before, revoked: revoked.revoked_at !== null, after, opened }));
`;

// Wrong on purpose in one place: the types must catch a permission the API does not have.
const CONSUMER = `
import { Client, type CreatedApiKey, type Device } from '@sms-gateway/sdk';
const client = new Client({ baseUrl: 'http://localhost:3000', apiKey: 'sgw_x' });
export async function typed(): Promise<[CreatedApiKey, Device[]]> {
  const key = await client.keys.create({ permissions: ['sms:read'] });
  const page = await client.devices.list({ limit: 5 });
  return [key, page.data];
}
// @ts-expect-error: not a permission
client.keys.create({ permissions: ['sms:everything'] });
`;

describe('TypeScript SDK installed from its packed tarball', function () {
  // npm pack compiles the SDK; the machine running the suite may be busy.
  this.timeout(300_000);
  const fx = useGateway();
  let directory: string;

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'sdk-package-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('packs with dist/, installs offline into a scratch project, and its script calls the gateway', async () => {
    // ./ matters: npm reads a bare sdk/typescript as the GitHub repository sdk/typescript.
    const packed = await run('npm', ['pack', './sdk/typescript', '--pack-destination', directory, '--json'], resolve('.'));
    expect(packed.code, packed.output).to.equal(0);
    const [manifest] = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = manifest!.files.map((file) => file.path);
    // Laid out as in the repository: the encryption is the device agent's, compiled in beside the SDK.
    expect(files).to.include.members([
      'dist/sdk/typescript/src/index.js',
      'dist/sdk/typescript/src/index.d.ts',
      'dist/sdk/typescript/src/resources.js',
      'dist/agent/src/protocol/end-to-end.js',
      'dist/agent/src/protocol/end-to-end.d.ts',
      'package.json',
    ]);

    // The integrator's npm would list a script it runs at install (prepare included) as one to
    // review, though a tarball's prepare never runs: building belongs to prepack.
    const { scripts } = JSON.parse(readFileSync(resolve('sdk/typescript/package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(scripts ?? {})).to.not.include.any.members(['preinstall', 'install', 'postinstall', 'prepare']);

    const project = join(directory, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integrator', version: '1.0.0', private: true, type: 'module' }));
    const tarball = join(directory, readdirSync(directory).find((name) => name.endsWith('.tgz'))!);
    const installed = await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], project);
    expect(installed.code, installed.output).to.equal(0);

    writeFileSync(join(project, 'script.mjs'), SCRIPT);
    const phone = await fx.taskPhone();
    const ran = await run('node', ['script.mjs'], project, { SMS_GATEWAY_URL: fx.baseUrl, SMS_GATEWAY_KEY: fx.tenant.key });
    expect(ran.code, ran.output).to.equal(0);
    expect(JSON.parse(ran.output)).to.deep.equal({ devices: [phone.id], before: 0, revoked: true, after: 'refused', opened: 'hello' });

    // The installed package's declarations, as an integrator's compiler reads them.
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    const tsc = resolve('node_modules/typescript/bin/tsc');
    const checked = await run(
      'node',
      [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node', '--typeRoots', resolve('node_modules/@types'), 'consumer.ts'],
      project,
    );
    expect(checked.code, checked.output).to.equal(0);
  });
});
