// The shipped command runs compiled JavaScript. In a copy of the package in a temporary
// directory (sources, bin, build script, configuration; node_modules linked), so the
// repository's own dist/ is left alone: the first start builds dist/ and serves from it, a
// changed source makes the next start build again, an unchanged tree builds nothing, a user who
// cannot write the checkout is told in one line to rebuild it as its owner, and a package holding
// dist/ without sources runs without building.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../support/cli.ts';
import { scrapeMetrics, TEST_METRICS_TOKEN } from '../support/metrics.ts';

const COPIED = [
  'src',
  'broker',
  'db',
  'panel',
  // The simulator is the device agent with a simulated radio: its sources are compiled in.
  'agent/src',
  'agent/package.json',
  'agent/tsconfig.json',
  'agent/tsconfig.build.json',
  // The agent's package, which the gateway serves to phones, is packed with the build.
  'agent/README.md',
  'deploy/agent',
  'bin',
  'scripts/build.js',
  'scripts/agent-pack.js',
  'scripts/panel-build.js',
  'scripts/source-files.js',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
const SOURCES = ['src', 'broker', 'db', 'panel', 'agent/src'];
const BUILD_LINE = /^sms-gateway: building dist\/ from the TypeScript sources \((no build yet|they changed|a full build was asked for|the last build had type errors)\)$/m;

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

describe('the compiled gateway (dist/)', function () {
  this.timeout(60_000);

  let root: string;
  let dataDir: string;
  const children = new Set<ChildProcess>();

  function run(args: string[]): Run {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', METRICS_TOKEN: TEST_METRICS_TOKEN };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [join(root, 'bin', 'sms-gateway.js'), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const result: Run = {
      child,
      stdout: '',
      stderr: '',
      exited: new Promise((resolve) => child.once('close', (code) => (children.delete(child), resolve(code)))),
    };
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (result.stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (result.stderr += chunk));
    return result;
  }

  /** Resolves with the HTTP port from the "gateway listening" log line; fails if the process ends first. */
  function listening(started: Run): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (const line of started.stdout.split('\n')) {
          if (!line.startsWith('{')) continue;
          let entry: { msg?: string; port?: number };
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            continue; // a line not complete yet
          }
          if (entry.msg === 'gateway listening' && entry.port) {
            started.child.stdout!.off('data', check);
            return resolve(entry.port);
          }
        }
      };
      started.child.stdout!.on('data', check);
      void started.exited.then((code) => reject(new Error(`exited with ${code} before listening\n${started.stdout}\n${started.stderr}`)));
    });
  }

  async function stop(started: Run): Promise<number | null> {
    started.child.kill('SIGTERM');
    return started.exited;
  }

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'sgw-compiled-'));
    dataDir = join(root, 'data');
    mkdirSync(join(root, 'scripts'));
    mkdirSync(join(root, 'agent'));
    for (const path of COPIED) cpSync(join(REPO_ROOT, path), join(root, path), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  });

  after(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('when dist/ is missing, then serve builds it (saying so in one line on stderr) and the compiled gateway answers /healthz, /docs, /metrics and the panel at /', async function () {
    // A whole build (TypeScript, the panel, the agent's package) on a machine running the rest of the suite.
    this.timeout(300_000);
    const started = run(['serve']);
    const port = await listening(started);
    expect(started.stderr.match(new RegExp(BUILD_LINE.source, 'gm')), started.stderr).to.have.length(1);
    expect(BUILD_LINE.exec(started.stderr)?.[1]).to.equal('no build yet');
    expect(existsSync(join(root, 'dist', 'src', 'cli', 'index.js'))).to.equal(true);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    // The page and its script are files beside the code: the build copied them.
    const docs = await fetch(`http://127.0.0.1:${port}/docs`);
    expect(docs.status).to.equal(200);
    expect(docs.headers.get('content-type')).to.match(/^text\/html/);
    expect((await fetch(`http://127.0.0.1:${port}/docs/assets/docs.js`)).status).to.equal(200);
    // The control panel is bundled by the same build and served at / with its assets.
    const panel = await fetch(`http://127.0.0.1:${port}/`);
    expect(panel.status).to.equal(200);
    const script = /src="(\/panel\/assets\/app-[A-Z0-9]+\.js)"/.exec(await panel.text())?.[1];
    expect(script, 'the page names its bundled script').to.be.a('string');
    const bundle = await fetch(`http://127.0.0.1:${port}${script!}`);
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.match(/^text\/javascript/);
    // The version comes from the package's package.json, found from dist/ too.
    const openApi = (await (await fetch(`http://127.0.0.1:${port}/api/ext/v1/openapi.json`)).json()) as { info: { version: string } };
    expect(openApi.info.version).to.equal((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    expect(await (await scrapeMetrics(`http://127.0.0.1:${port}`)).text()).to.contain('http_requests_total{method="GET",route="/healthz",status="200"} 1');

    expect(await stop(started), started.stderr).to.equal(0);
  });

  it('when a source file changed, then the next command builds again; when nothing changed, then it builds nothing', async function () {
    this.timeout(120_000);
    const later = new Date(Date.now() + 2_000);
    utimesSync(join(root, 'src', 'config.ts'), later, later);
    const rebuilt = run(['--help']);
    expect(await rebuilt.exited, rebuilt.stderr).to.equal(0);
    expect(BUILD_LINE.exec(rebuilt.stderr)?.[1], rebuilt.stderr).to.equal('they changed');
    expect(rebuilt.stdout).to.contain('usage: sms-gateway');

    const again = run(['--help']);
    expect(await again.exited, again.stderr).to.equal(0);
    expect(again.stderr).to.equal('');
    expect(again.stdout).to.contain('usage: sms-gateway');
  });

  it('when `npm run build` runs twice on unchanged sources, then the second builds nothing and says dist/ is up to date', async function () {
    this.timeout(180_000);
    const build = (args: string[] = []) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(root, 'scripts', 'build.js'), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
        children.add(child);
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('close', (code) => (children.delete(child), resolve({ code, stderr })));
      });
    // The first may compile the device agent (agent/dist), which the bin does not need.
    const first = await build();
    expect(first.code, first.stderr).to.equal(0);
    expect(existsSync(join(root, 'agent', 'dist', 'agent.js')), 'the agent is compiled too').to.equal(true);
    const second = await build();
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stderr).to.equal('sms-gateway: dist/ is up to date with the sources\n');
    const forced = await build(['--force']);
    expect(forced.code, forced.stderr).to.equal(0);
    expect(BUILD_LINE.exec(forced.stderr)?.[1], forced.stderr).to.equal('a full build was asked for');
  });

  it('when the sources are newer than dist/ and the user cannot write the checkout (a service\'s user), then it says so in one line of its own, naming the path, and exits 1', async function () {
    this.timeout(60_000);
    const later = new Date(Date.now() + 4_000);
    utimesSync(join(root, 'src', 'config.ts'), later, later);
    // Root writes anywhere: as root the command runs as nobody, as the service's user would; as
    // anyone else the checkout is made read-only for the run.
    const asRoot = process.getuid?.() === 0;
    chmodSync(root, asRoot ? 0o755 : 0o555);
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(tmpdir(), 'sgw-compiled-unused') };
      const child = spawn(process.execPath, [join(root, 'bin', 'sms-gateway.js'), '--help'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
      children.add(child);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => (children.delete(child), resolve(exit))));
      expect(code, stderr).to.equal(1);
      expect(stderr).to.equal(`sms-gateway: dist/ is older than the sources and this user cannot rebuild it (it may not write ${join(root, '.dist-build.lock')}): run \`npm ci && npm run build\` in the checkout as its owner, then start again\n`);
    } finally {
      chmodSync(root, 0o700);
    }
    // Its owner rebuilds it, as the message says, for the test below.
    const rebuilt = run(['--help']);
    expect(await rebuilt.exited, rebuilt.stderr).to.equal(0);
  });

  it('when the package holds dist/ without its TypeScript sources, then serve runs it without building', async function () {
    this.timeout(90_000);
    for (const dir of SOURCES) rmSync(join(root, dir), { recursive: true });
    const started = run(['serve']);
    const port = await listening(started);
    expect(started.stderr).not.to.match(BUILD_LINE);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).to.equal(200);
    expect(await stop(started), started.stderr).to.equal(0);
  });
});
