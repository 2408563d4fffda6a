// A PostgreSQL cluster of a drill's own, in a temporary directory, on a free port of 127.0.0.1:
// a drill may stop and start it for real without touching the server that others (tests, other
// drills) use. Trust authentication, fsync off: it holds nothing worth keeping, and is deleted
// on exit, failure and Ctrl-C included.
//
// initdb refuses to run as root: as root the cluster is made and run as the "postgres" user.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../test/support/ports.ts';
import { PostgresTools } from './postgres-tools.ts';

export class PrivatePostgres {
  private running = false;
  private removed = false;
  private readonly exitHandler = () => this.removeNow();

  private constructor(
    private readonly tools: PostgresTools,
    readonly port: number,
  ) {}

  /** Creates the cluster and starts it; it is removed when the process exits, whatever happens. */
  static async create(label: string): Promise<PrivatePostgres> {
    const cluster = new PrivatePostgres(PostgresTools.inNewDirectory(label), await freePort());
    process.once('exit', cluster.exitHandler);
    try {
      await cluster.tools.run('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
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
    await this.tools.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.tools.dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.tools.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
    this.running = true;
  }

  /** Stops the server for real ("fast": open sessions are ended, as in a restart or a crash). */
  async stop(): Promise<void> {
    await this.tools.run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    this.running = false;
  }

  /** Stops the server at once and deletes the cluster (synchronous: also runs on process exit). */
  removeNow(): void {
    if (this.removed) return;
    this.removed = true;
    process.off('exit', this.exitHandler);
    if (existsSync(join(this.dataDir, 'postmaster.pid'))) {
      spawnSync(...this.tools.command('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
    }
    this.running = false;
    rmSync(this.tools.dir, { recursive: true, force: true });
  }

  private get dataDir(): string {
    return join(this.tools.dir, 'data');
  }
}
