// Where the first-start key goes: never to stdout with the JSON logs, where log collectors
// would store it, but to the terminal only: stderr when it is a TTY, otherwise a file under
// DATA_DIR with mode 0600, and one log line says where. The real command in a child process
// with stdout and stderr piped, as under a process manager: neither is a terminal. On
// PostgreSQL (the default) it gets an empty database of its own, with DATA_DIR still set.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { API_KEY, GatewayProcess, killChildren, REPO_ROOT, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase } from '../support/environment.ts';
import { emptyDatabase } from '../support/empty-database.ts';
import { ApiClient } from '../support/tenant.ts';

const KEY_LINE = new RegExp(`^ {2}(${API_KEY.source})$`, 'm');

/** Resolves with the file's text once it contains `text` (the logs reach a file asynchronously). */
function fileContaining(file: string, text: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const content = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (!content.includes(text)) return;
      watcher.close();
      clearTimeout(timer);
      resolve(content);
    };
    const watcher = watch(file, check);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${file} did not come to contain ${JSON.stringify(text)} within ${timeoutMs} ms`));
    }, timeoutMs);
    check();
  });
}

describe('the first-start banner when no terminal is watching', function () {
  this.timeout(240_000);

  const target = testDatabase();
  let dataDir: ReturnType<typeof tempDataDir>;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let gateway: GatewayProcess;
  let port: number;
  let bannerFile: string;
  let logged: Record<string, unknown>[];

  before(async function () {
    this.timeout(240_000);
    dataDir = tempDataDir('first-start');
    // A DATA_DIR that does not exist yet; with PostgreSQL it holds no database, only files like this one.
    const dir = join(dataDir.dir, target.kind === 'postgres' ? 'files' : 'db');
    const env: Env = { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl, 'first_start');
      env.DATABASE_URL = database.url;
    }
    gateway = new GatewayProcess(['serve'], env);
    port = (await gateway.waitForLog('gateway listening', 200_000)).port as number;
    const line = await gateway.waitFor('the log line naming the banner file', 10_000, () =>
      gateway.logLines().find((each) => typeof each.file === 'string' && String(each.msg).startsWith('first start')),
    );
    bannerFile = line.file as string;
    logged = gateway.logLines();
  });

  after(async () => {
    gateway?.kill();
    killChildren();
    await database?.drop();
    dataDir?.remove();
  });

  it('then the banner is in first-start.txt inside DATA_DIR, readable and writable by this user only', () => {
    const expected = join(dataDir.dir, target.kind === 'postgres' ? 'files' : 'db', 'first-start.txt');
    expect(bannerFile).to.equal(expected);
    expect(existsSync(bannerFile)).to.equal(true);
    expect(statSync(bannerFile).mode & 0o777).to.equal(0o600);
  });

  it('then the key is neither on stdout (the JSON logs) nor on stderr', () => {
    const key = KEY_LINE.exec(readFileSync(bannerFile, 'utf8'))?.[1];
    expect(key, 'the file holds the key').to.be.a('string');
    expect(gateway.stdout).not.to.contain(key!.slice(15));
    expect(gateway.stderr).not.to.contain(key!.slice(15));
    expect(gateway.stdout).not.to.contain('First start: created account');
    expect(gateway.stderr).not.to.contain('First start: created account');
  });

  it('then exactly one log line says where the file is', () => {
    const naming = logged.filter((line) => JSON.stringify(line).includes('first-start.txt'));
    expect(naming, JSON.stringify(naming)).to.have.length(1);
    expect(naming[0]!.level).to.equal(30);
  });

  it('then the banner names the control panel\'s address, which serves the panel', async () => {
    const panel = /control panel at (http:\/\/127\.0\.0\.1:(\d+)\/) /.exec(readFileSync(bannerFile, 'utf8'));
    expect(panel, 'the banner names the panel').to.not.equal(null);
    expect(Number(panel![2])).to.equal(port);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('/panel/assets/app-');
  });

  it('then the key in the file works against the API', async () => {
    const key = KEY_LINE.exec(readFileSync(bannerFile, 'utf8'))![1]!;
    const api = new ApiClient(`http://127.0.0.1:${port}/api/ext/v1`, key);
    for (const path of ['/sms', '/devices', '/webhooks']) {
      const reply = await api.get(path);
      expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).to.equal(200);
    }
  });
});

describe('the first-start banner file', function () {
  this.timeout(240_000);

  let dataDir: ReturnType<typeof tempDataDir>;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let gateway: GatewayProcess;

  after(async () => {
    gateway?.kill();
    killChildren();
    await database?.drop();
    dataDir?.remove();
  });

  it('when an older one (mode 0644) is in DATA_DIR, then it is replaced by a new file of mode 0600', async () => {
    dataDir = tempDataDir('first-start-old');
    const file = join(dataDir.dir, 'first-start.txt');
    writeFileSync(file, 'an old banner\n', { mode: 0o644 });
    const env: Env = { DATA_DIR: dataDir.dir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    const target = testDatabase();
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl, 'first_start');
      env.DATABASE_URL = database.url;
    }
    gateway = new GatewayProcess(['serve'], env);
    await gateway.waitFor('the log line naming the banner file', 200_000, () =>
      gateway.logLines().find((line) => line.file === file),
    );
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.to.contain('an old banner');
    expect(text).to.match(KEY_LINE);
  });
});

describe('the first-start banner on a terminal', function () {
  this.timeout(240_000);

  let dataDir: ReturnType<typeof tempDataDir> | undefined;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let terminal: ReturnType<typeof spawn> | undefined;

  after(async () => {
    terminal?.kill('SIGTERM');
    await database?.drop();
    dataDir?.remove();
  });

  it('when stderr is a terminal, then the banner is printed there, stdout (a file here) never holds the key, and no file is written', async function () {
    // util-linux `script` gives the command a terminal; without it there is no terminal to test with.
    if (spawnSync('script', ['--version']).error) this.skip();
    dataDir = tempDataDir('first-start-tty');
    const files = join(dataDir.dir, 'data');
    const stdoutFile = join(dataDir.dir, 'stdout.log');
    const env: Env = { DATA_DIR: files, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    const target = testDatabase();
    if (target.kind === 'postgres') {
      database = await emptyDatabase(target.adminUrl, 'first_start');
      env.DATABASE_URL = database.url;
    }
    const command = `'${process.execPath}' '${join(REPO_ROOT, 'bin', 'sms-gateway.js')}' serve > '${stdoutFile}'`;
    terminal = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    terminal.stdout!.setEncoding('utf8');
    const key = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no key on the terminal within 200 s\n${screen}`)), 200_000);
      terminal!.stdout!.on('data', (chunk: string) => {
        // A terminal ends lines with \r\n.
        screen += chunk.replace(/\r/g, '');
        const found = KEY_LINE.exec(screen)?.[1];
        if (!found) return;
        clearTimeout(timer);
        resolve(found);
      });
      terminal!.once('exit', () => reject(new Error(`the terminal closed before the key\n${screen}`)));
    });
    expect(screen).to.contain('First start: created account "default"');
    // The key is created after the gateway listens, and logged ("api key created", by prefix) when it is.
    const logs = await fileContaining(stdoutFile, '"api key created"', 10_000);
    expect(logs).not.to.contain(key.slice(15));
    expect(logs).not.to.contain('first-start.txt');
    expect(existsSync(join(files, 'first-start.txt'))).to.equal(false);
    const port = (JSON.parse(logs.split('\n').find((line) => line.includes('"gateway listening"'))!) as { port: number }).port;
    expect((await new ApiClient(`http://127.0.0.1:${port}/api/ext/v1`, key).get('/sms')).status).to.equal(200);
  });
});
