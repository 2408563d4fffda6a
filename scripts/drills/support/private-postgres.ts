// A PostgreSQL cluster of a drill's own, in a temporary directory, on a free port of 127.0.0.1:
// a drill may stop and start it for real without touching the server that others (tests, other
// drills) use. Trust authentication, fsync off: it holds nothing worth keeping, and is deleted
// on exit, failure and Ctrl-C included.
//
// initdb refuses to run as root: as root the cluster is made and run as the "postgres" user.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from '../../../test/support/ports.ts';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const CLUSTER_USER = 'postgres';

/** The newest PostgreSQL server binaries installed the Debian/Ubuntu way, or PG_BIN. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (set PG_BIN to the directory holding initdb and pg_ctl)`);
  versions.sort((a, b) => Number(b) - Number(a));
  return join(root, versions[0]!, 'bin');
}

export class PrivatePostgres {
  private running = false;
  private removed = false;
  private readonly exitHandler = () => this.removeNow();

  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
    private readonly asRoot: boolean,
  ) {}

  /** Creates the cluster and starts it; it is removed when the process exits, whatever happens. */
  static async create(label: string): Promise<PrivatePostgres> {
    const bin = binDir();
    const dir = mkdtempSync(join(tmpdir(), `sgw-${label}-pg-`));
    const asRoot = userInfo().uid === 0;
    const cluster = new PrivatePostgres(bin, dir, await freePort(), asRoot);
    process.once('exit', cluster.exitHandler);
    try {
      if (asRoot) {
        const { uid, gid } = userIds(CLUSTER_USER);
        chownSync(dir, uid, gid);
      }
      await cluster.run('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
      await cluster.start();
      return cluster;
    } catch (error) {
      cluster.removeNow();
      throw error;
    }
  }

  /** The maintenance database; `database(name)` names another on the same cluster. */
  get url(): string {
    return this.database('postgres');
  }

  database(name: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the server and waits until it accepts connections (without blocking the event loop). */
  async start(): Promise<void> {
    await this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
    this.running = true;
  }

  /** Stops the server for real ("fast": open sessions are ended, as in a restart or a crash). */
  async stop(): Promise<void> {
    await this.run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    this.running = false;
  }

  /** Stops the server at once and deletes the cluster (synchronous: also runs on process exit). */
  removeNow(): void {
    if (this.removed) return;
    this.removed = true;
    process.off('exit', this.exitHandler);
    if (existsSync(join(this.dataDir, 'postmaster.pid'))) {
      spawnSync(...this.command('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
    }
    this.running = false;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private command(tool: string, args: string[]): [string, string[]] {
    const path = join(this.bin, tool);
    return this.asRoot ? ['runuser', ['-u', CLUSTER_USER, '--', path, ...args]] : [path, args];
  }

  private async run(tool: string, args: string[]): Promise<void> {
    const [file, argv] = this.command(tool, args);
    try {
      await promisify(execFile)(file, argv, { cwd: this.dir });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.toString().trim();
      throw new Error(`${tool} failed: ${stderr || (error as Error).message}`);
    }
  }
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  return { uid, gid };
}
