// tightenDataDir: what it changes in a DATA_DIR left open to others, what it leaves alone, and
// the refusal, naming the path, when a file cannot be made private.
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { StartupError } from '../../src/common/errors.ts';
import { tightenDataDir } from '../../src/storage/data-dir-permissions.ts';
import { REPO_ROOT } from '../support/cli.ts';

const mode = (path: string) => lstatSync(path).mode & 0o7777;

describe('storage: DATA_DIR permissions', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'sgw-perms-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('when DATA_DIR does not exist and it is to be created, then it is made 0700', () => {
    const dir = join(scratch, 'a', 'data');
    const { tightened } = tightenDataDir(dir, { create: true });
    expect(mode(dir)).to.equal(0o700);
    expect(tightened).to.deep.equal([]);
  });

  it('when DATA_DIR does not exist and is not to be created (PostgreSQL), then nothing is made', () => {
    const dir = join(scratch, 'absent');
    expect(tightenDataDir(dir, { create: false }).tightened).to.deep.equal([]);
    expect(() => statSync(dir)).to.throw();
  });

  it('when entries are open to others, then exactly those lose their group and other bits and keep their owner bits', () => {
    const dir = join(scratch, 'data');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'open.txt'), 'x');
    writeFileSync(join(dir, 'sub', 'tool.sh'), 'x');
    writeFileSync(join(dir, 'private.txt'), 'x');
    chmodSync(dir, 0o777);
    chmodSync(join(dir, 'sub'), 0o750);
    chmodSync(join(dir, 'open.txt'), 0o666);
    chmodSync(join(dir, 'sub', 'tool.sh'), 0o755);
    chmodSync(join(dir, 'private.txt'), 0o600);
    const { tightened } = tightenDataDir(dir, { create: true });
    expect(tightened.sort()).to.deep.equal([dir, join(dir, 'open.txt'), join(dir, 'sub'), join(dir, 'sub', 'tool.sh')].sort());
    expect(mode(dir)).to.equal(0o700);
    expect(mode(join(dir, 'sub'))).to.equal(0o700);
    expect(mode(join(dir, 'open.txt'))).to.equal(0o600);
    expect(mode(join(dir, 'sub', 'tool.sh'))).to.equal(0o700);
    expect(mode(join(dir, 'private.txt'))).to.equal(0o600);
  });

  it('when DATA_DIR holds a link to a directory elsewhere, then the link is not followed and the target is left as it is', () => {
    const dir = join(scratch, 'data');
    const elsewhere = join(scratch, 'elsewhere');
    mkdirSync(dir, { mode: 0o700 });
    mkdirSync(elsewhere);
    chmodSync(elsewhere, 0o755);
    writeFileSync(join(elsewhere, 'shared.txt'), 'x');
    chmodSync(join(elsewhere, 'shared.txt'), 0o644);
    symlinkSync(elsewhere, join(dir, 'link'));
    expect(tightenDataDir(dir, { create: true }).tightened).to.deep.equal([]);
    expect(mode(elsewhere)).to.equal(0o755);
    expect(mode(join(elsewhere, 'shared.txt'))).to.equal(0o644);
  });

  it('when DATA_DIR is a file, then it refuses, naming it', () => {
    const file = join(scratch, 'data');
    writeFileSync(file, 'x');
    expect(() => tightenDataDir(file, { create: true }))
      .to.throw(StartupError)
      .with.property('message', `DATA_DIR ${file} is not a directory`);
  });

  it('when a file in DATA_DIR belongs to another user, then the command run by this user refuses to start, naming the file', function () {
    this.timeout(330_000);
    // Only root can hand a file to another user (and run a command as one).
    if (process.getuid?.() !== 0) this.skip();
    const dir = join(scratch, 'data');
    mkdirSync(dir);
    chmodSync(scratch, 0o755);
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, 'root-owned.txt'), 'x');
    chmodSync(join(dir, 'root-owned.txt'), 0o644);
    // dist/ fresh first: the other user could not build it in the repository.
    expect(spawnSync(process.execPath, ['bin/sms-gateway.js', '--version'], { cwd: REPO_ROOT, timeout: 300_000 }).status).to.equal(0);
    const nobody = 65534;
    // The directory itself is the nobody user's, so only the root-owned file inside cannot be changed.
    spawnSync('chown', [String(nobody), dir]);
    const run = spawnSync(process.execPath, ['bin/sms-gateway.js', 'migrate'], {
      cwd: REPO_ROOT,
      uid: nobody,
      gid: nobody,
      env: { PATH: process.env.PATH, HOME: scratch, DATA_DIR: dir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(1);
    expect(run.stderr).to.contain(`error: ${join(dir, 'root-owned.txt')} in DATA_DIR can be read by other users (mode 644) and could not be made private (owned by user 0, not by this process's user ${nobody})`);
    expect(run.stderr).not.to.match(/\n\s+at /);
    expect(mode(join(dir, 'root-owned.txt'))).to.equal(0o644);
  });
});
