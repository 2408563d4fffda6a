// DATA_DIR holds the embedded database, recordings and the first-start banner with a live key.
// Started with a umask that lets everyone read new files (umask 000), `serve` must still leave
// every directory in it 0700 and every file 0600; a DATA_DIR left open to others by an earlier
// run is closed at start, with one log line saying so.
import { chmodSync, mkdirSync, readdirSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GatewayProcess, killChildren, tempDataDir } from '../support/cli.ts';

const TIGHTENED_LOG = /^DATA_DIR was readable by other users: removed group and other permissions from \d+ file/;

/** Every path below `dir` (itself included) whose group or other permission bits are set, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

function countFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) count++;
  return count;
}

describe('serve: DATA_DIR is private whatever the umask', function () {
  this.timeout(240_000);
  const scratch = tempDataDir('modes');
  after(() => {
    killChildren();
    scratch.remove();
  });

  async function serveUntilStarted(dataDir: string): Promise<GatewayProcess> {
    const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    const gateway = new GatewayProcess(['serve'], env, { umask: 0o000 });
    await gateway.waitForLog('gateway listening', 200_000);
    return gateway;
  }

  async function stop(gateway: GatewayProcess): Promise<void> {
    gateway.signal('SIGTERM');
    expect((await gateway.waitForExit(30_000)).code, gateway.transcript()).to.equal(0);
  }

  it('when it creates DATA_DIR on a first start under umask 000, then the database, its write-ahead log and first-start.txt are 0600 in 0700 directories', async () => {
    const dataDir = join(scratch.dir, 'fresh');
    const gateway = await serveUntilStarted(dataDir);
    // The banner file is written once the first account exists: the last file of a first start.
    await gateway.waitForLog("first start: the new API key and the administrator's one-time password are in this file, readable by this user only; delete the file once the key is kept safe");
    await stop(gateway);
    expect(countFiles(join(dataDir, 'pg_wal')), 'the write-ahead log is there to be checked').to.be.above(0);
    expect(openToOthers(dataDir)).to.deep.equal([]);
    expect(lstatSync(dataDir).mode & 0o777).to.equal(0o700);
    expect(lstatSync(join(dataDir, 'first-start.txt')).mode & 0o777).to.equal(0o600);
    expect(gateway.logLines().some((line) => TIGHTENED_LOG.test(String(line.msg))), 'nothing was open to tighten').to.equal(false);
  });

  it('when DATA_DIR and files in it are open to everyone (0777, 0666), then it makes them private at start and says so in one log line', async () => {
    const dataDir = join(scratch.dir, 'open');
    mkdirSync(join(dataDir, 'recordings', 'old'), { recursive: true });
    chmodSync(dataDir, 0o777);
    writeFileSync(join(dataDir, 'notes.txt'), 'left by an earlier run');
    chmodSync(join(dataDir, 'notes.txt'), 0o666);
    chmodSync(join(dataDir, 'recordings'), 0o755);
    chmodSync(join(dataDir, 'recordings', 'old'), 0o777);
    writeFileSync(join(dataDir, 'recordings', 'old', 'call.wav'), 'RIFF');
    chmodSync(join(dataDir, 'recordings', 'old', 'call.wav'), 0o644);
    expect(openToOthers(dataDir)).to.have.length(5);

    const gateway = await serveUntilStarted(dataDir);
    const tightened = gateway.logLines().filter((line) => TIGHTENED_LOG.test(String(line.msg)));
    await stop(gateway);
    expect(tightened, gateway.transcript()).to.have.length(1);
    expect(tightened[0]!.dataDir).to.equal(dataDir);
    expect(tightened[0]!.count).to.equal(5);
    expect(tightened[0]!.level).to.equal(40);
    expect(openToOthers(dataDir)).to.deep.equal([]);
    expect(lstatSync(join(dataDir, 'recordings', 'old', 'call.wav')).mode & 0o777).to.equal(0o600);
    expect(lstatSync(join(dataDir, 'recordings', 'old')).mode & 0o777).to.equal(0o700);
  });
});
