// The image people run holds the compiled gateway and the production dependencies only. No
// Docker daemon runs here, so the Dockerfile's final stage is replayed as it is written: its COPY
// lines (the build stage's dist/ being the repository's own, built as `npm run build` builds it)
// and its `npm ci --omit=dev` into an empty directory. The gateway must then start there on the
// embedded database, answer, and find none of the development tools it must not need.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../support/cli.ts';

interface FinalStage {
  /** [from, to] pairs; from is in the repository (the build stage's /app is the repository built). */
  copies: [string, string][];
  /** The npm ci command line of the stage's RUN, as words. */
  npmCi: string[];
}

/** The last stage of the Dockerfile: what it copies and how it installs. */
function readFinalStage(): FinalStage {
  const lines = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ').split('\n');
  const stage = lines.slice(lines.findLastIndex((line) => /^FROM\s/.test(line)));
  const copies: [string, string][] = [];
  let npmCi: string[] = [];
  for (const line of stage) {
    const copy = /^COPY\s+(.*)$/.exec(line);
    if (copy) {
      const words = copy[1]!.trim().split(/\s+/);
      const fromBuild = words[0] === '--from=build';
      const paths = fromBuild ? words.slice(1) : words;
      const target = paths.pop()!;
      for (const source of paths) {
        const from = fromBuild ? source.replace(/^\/app\//, '') : source;
        copies.push([from, target.endsWith('/') ? join(target, source.split('/').pop()!) : target]);
      }
    }
    const run = /^RUN\s+(npm ci[^&]*)/.exec(line);
    if (run) npmCi = run[1]!.trim().split(/\s+/);
  }
  return { copies, npmCi };
}

describe('the production install (the Dockerfile\'s final stage, replayed)', function () {
  this.timeout(240_000);
  let root: string;
  let child: ChildProcess | undefined;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'sgw-production-'));
  });

  after(() => {
    child?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('when installed with production dependencies only, then the compiled gateway starts on the embedded database and answers', async () => {
    const stage = readFinalStage();
    expect(stage.npmCi, 'the final stage installs with npm ci --omit=dev').to.include('--omit=dev');
    // The build stage's `npm run build`: builds nothing when dist/ is up to date with the sources.
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.js')], { cwd: REPO_ROOT, stdio: 'pipe' });

    // The stage's order: package files, the install, then the code.
    const packageFiles = stage.copies.filter(([from]) => /package(-lock)?\.json$/.test(from));
    for (const [from, to] of packageFiles) {
      mkdirSync(dirname(join(root, to)), { recursive: true });
      cpSync(join(REPO_ROOT, from), join(root, to));
    }
    // From the cache `npm ci` filled for the repository: no download needed, none forbidden.
    execFileSync('npm', [...stage.npmCi.slice(1), '--prefer-offline'], { cwd: root, stdio: 'pipe', env: { ...process.env, npm_config_loglevel: 'error' } });
    for (const [from, to] of stage.copies.filter((copy) => !packageFiles.includes(copy))) {
      mkdirSync(dirname(join(root, to)), { recursive: true });
      cpSync(join(REPO_ROOT, from), join(root, to), { recursive: true });
    }

    for (const devTool of ['typescript', 'mocha', 'tsx', 'playwright-core', 'chai']) {
      expect(existsSync(join(root, 'node_modules', devTool)), `${devTool} is a development dependency`).to.equal(false);
    }
    expect(existsSync(join(root, 'src')), 'no TypeScript sources').to.equal(false);

    const version = execFileSync(process.execPath, [join(root, 'bin', 'sms-gateway.js'), '--version'], { cwd: root, encoding: 'utf8' });
    expect(version.trim()).to.contain((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);

    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(root, 'data'), PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info' };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    child = spawn(process.execPath, [join(root, 'bin', 'sms-gateway.js'), 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const port = await new Promise<number>((resolve, reject) => {
      let buffer = '';
      child!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const listening = /"msg":"gateway listening"/.exec(buffer) && /"port":(\d+)[,}][^\n]*"msg":"gateway listening"/.exec(buffer);
        if (listening) resolve(Number(listening[1]));
      });
      child!.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening\n${buffer}\n${output}`)));
    });
    expect(output, 'nothing was built at start: dist/ was shipped').not.to.match(/building dist/);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status, 'the panel is served').to.equal(200);
    expect((await fetch(`http://127.0.0.1:${port}/docs`)).status, 'the API docs are served').to.equal(200);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
