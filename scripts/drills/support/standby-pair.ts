// Two PostgreSQL clusters of a drill's (or a test's) own: a primary and a standby streaming from
// it synchronously (synchronous_standby_names = '*': a commit returns once the standby has it),
// in one temporary directory, each on a free port of 127.0.0.1. The primary can be killed
// (`pg_ctl stop -m immediate`, as a crash) and the standby promoted. Trust authentication,
// fsync off: nothing worth keeping; both are stopped and deleted on exit, failure and Ctrl-C.
//
// initdb refuses to run as root: as root the clusters are made and run as the "postgres" user.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../test/support/ports.ts';
import { PostgresTools } from './postgres-tools.ts';

/** The wait for the standby to stream, for a server to start or stop. */
const WAIT_S = 60;

export class StandbyPair {
  private removed = false;
  private readonly exitHandler = () => this.removeNow();

  private constructor(
    private readonly tools: PostgresTools,
    readonly primaryPort: number,
    readonly standbyPort: number,
  ) {}

  /** Makes both clusters and `database` on them, starts them, and waits until the standby streams. */
  static async create(label: string, database: string): Promise<StandbyPair> {
    const pair = new StandbyPair(PostgresTools.inNewDirectory(label), await freePort(), await freePort());
    process.once('exit', pair.exitHandler);
    try {
      await pair.tools.run('initdb', ['-D', pair.dataDir('primary'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
      appendFileSync(
        join(pair.dataDir('primary'), 'postgresql.conf'),
        ['wal_level = replica', 'max_wal_senders = 10', 'synchronous_commit = on', ''].join('\n'),
      );
      appendFileSync(join(pair.dataDir('primary'), 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
      await pair.start('primary');
      await pair.onPrimary(`create database ${database}`);
      // -R: the copy starts as a standby of the primary (standby.signal and primary_conninfo).
      await pair.tools.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pair.primaryPort), '-U', 'postgres', '-D', pair.dataDir('standby'), '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast']);
      // Promoted, the standby must not wait for a standby of its own, which it has not.
      appendFileSync(join(pair.dataDir('standby'), 'postgresql.conf'), "synchronous_standby_names = ''\n");
      await pair.start('standby');
      // Synchronous only now: a commit on the primary before the standby streamed would wait for it.
      await pair.onPrimary("alter system set synchronous_standby_names = '*'", 'select pg_reload_conf()');
      await pair.waitForStreaming();
      return pair;
    } catch (error) {
      pair.removeNow();
      throw error;
    }
  }

  url(server: 'primary' | 'standby', database: string): string {
    return `postgres://postgres@127.0.0.1:${server === 'primary' ? this.primaryPort : this.standbyPort}/${database}`;
  }

  /** The primary dies at once, as in a crash: its sessions are cut without a goodbye. */
  async killPrimary(): Promise<void> {
    await this.tools.run('pg_ctl', ['-D', this.dataDir('primary'), '-m', 'immediate', '-w', '-t', String(WAIT_S), 'stop']);
  }

  /** The standby stops replaying and accepts writes; resolves once it does. */
  async promoteStandby(): Promise<void> {
    await this.tools.run('pg_ctl', ['-D', this.dataDir('standby'), '-w', '-t', String(WAIT_S), 'promote']);
  }

  /** Stops both servers at once and deletes the clusters (synchronous: also runs on process exit). */
  removeNow(): void {
    if (this.removed) return;
    this.removed = true;
    process.off('exit', this.exitHandler);
    for (const server of ['primary', 'standby'] as const) {
      if (existsSync(join(this.dataDir(server), 'postmaster.pid'))) {
        spawnSync(...this.tools.command('pg_ctl', ['-D', this.dataDir(server), '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
      }
    }
    rmSync(this.tools.dir, { recursive: true, force: true });
  }

  private async start(server: 'primary' | 'standby'): Promise<void> {
    const port = server === 'primary' ? this.primaryPort : this.standbyPort;
    await this.tools.run('pg_ctl', [
      '-D',
      this.dataDir(server),
      '-l',
      join(this.tools.dir, `${server}.log`),
      '-w',
      '-t',
      String(WAIT_S),
      '-o',
      `-p ${port} -k ${this.tools.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
  }

  /** Runs `statements` on the primary's maintenance database, one after the other. */
  async onPrimary(...statements: string[]): Promise<void> {
    const client = new pg.Client({ connectionString: this.url('primary', 'postgres') });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  }

  /** Resolves once the primary streams to the standby synchronously. */
  private async waitForStreaming(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url('primary', 'postgres') });
    await client.connect();
    try {
      const deadline = Date.now() + WAIT_S * 1000;
      for (;;) {
        const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_stat_replication where state = 'streaming' and sync_state = 'sync'");
        if (rows[0]!.n > 0) return;
        if (Date.now() > deadline) throw new Error(`the standby did not stream within ${WAIT_S} s (see ${this.tools.dir}/standby.log)`);
        // The walsender announces nothing: asked again shortly.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await client.end();
    }
  }

  private dataDir(server: 'primary' | 'standby'): string {
    return join(this.tools.dir, server);
  }
}
