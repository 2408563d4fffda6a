// Which server of a DATABASE_URL listing several is the primary, for the pool's new connections.
// The hosts are tried in the order written, the last one found first, as libpq does with
// target_session_attrs: read-write takes the first whose `transaction_read_only` is off, primary
// the first not in recovery, any the first that answers. The answer is kept until a statement or a
// connection fails in a way that may mean a failover (database-errors.ts, mayMeanFailover): then
// the next new connection looks again, and the pool drops its connections to the old server as
// they come back to it (database.ts). While no server qualifies (the standby not yet promoted),
// every new connection fails as a server that is down does, and the API answers 503.
import pg from 'pg';
import type { Logger } from '../common/logger.ts';
import { hostConnectionString, hostLabel, type DatabaseHost, type DatabaseTarget } from './database-hosts.ts';

/** After a search that found no primary, how long later searches fail at once with its answer. */
const SEARCH_AGAIN_AFTER_MS = 200;

export class PrimaryFinder {
  private current: DatabaseHost | undefined;
  private last: DatabaseHost | undefined;
  private searching: Promise<DatabaseHost> | undefined;
  private failed: { at: number; error: Error } | undefined;

  constructor(
    private readonly target: DatabaseTarget,
    /** pg's settings for every connection (keepalive, timeouts): the host comes from the list. */
    private readonly settings: pg.ClientConfig,
    /** How long one host may take to connect and say what it is. */
    private readonly probeTimeoutMs: number,
    private readonly logger?: Logger,
  ) {}

  /** The primary: the one known, or the first found. Rejects, as a server down does, when none is. */
  primary(): Promise<DatabaseHost> {
    if (this.current) return Promise.resolve(this.current);
    if (this.searching) return this.searching;
    if (this.failed && Date.now() - this.failed.at < SEARCH_AGAIN_AFTER_MS) return Promise.reject(this.failed.error);
    this.searching = this.search().finally(() => (this.searching = undefined));
    return this.searching;
  }

  /** pg's settings for a connection to `host` (`overrides` on top: a statement timeout removed). */
  settingsFor(host: DatabaseHost, overrides: pg.ClientConfig = this.settings): pg.ClientConfig {
    return { ...overrides, connectionString: hostConnectionString(this.target, host) };
  }

  /** The host of the list at `host`:`port` (as a connection's parameters say). */
  hostAt(host: string | undefined, port: number | undefined): DatabaseHost | undefined {
    return this.target.hosts.find((one) => one.host === host && one.port === Number(port));
  }

  isCurrent(host: DatabaseHost | undefined): boolean {
    return host !== undefined && host === this.current;
  }

  /** `host` failed in a way that may mean it is no longer the primary: the next connection looks again. */
  lost(host: DatabaseHost | undefined, error: unknown): void {
    if (!host || host !== this.current) return;
    this.current = undefined;
    this.logger?.warn({ host: hostLabel(host), err: error }, 'database primary lost: looking for the server that accepts writes');
  }

  private async search(): Promise<DatabaseHost> {
    const order = this.last ? [this.last, ...this.target.hosts.filter((host) => host !== this.last)] : this.target.hosts;
    const refusals: string[] = [];
    for (const host of order) {
      const refusal = await this.refusal(host);
      if (refusal === undefined) {
        if (this.last !== host) this.logger?.info({ host: hostLabel(host), previous: this.last && hostLabel(this.last) }, `database primary: ${hostLabel(host)}`);
        this.current = this.last = host;
        this.failed = undefined;
        return host;
      }
      refusals.push(`${hostLabel(host)} ${refusal}`);
    }
    const error = Object.assign(new Error(`no server of DATABASE_URL accepts writes (${this.target.targetSessionAttrs}): ${refusals.join('; ')}`), {
      // libpq's code when no host of the list qualifies: a connection exception, as a server down.
      code: '08001',
    });
    this.failed = { at: Date.now(), error };
    throw error;
  }

  /** Why `host` is not the server wanted (unreachable, read only, in recovery); undefined when it is. */
  private async refusal(host: DatabaseHost): Promise<string | undefined> {
    const { statement_timeout: _none, ...settings } = this.settingsFor(host);
    const client = new pg.Client({ ...settings, connectionTimeoutMillis: this.probeTimeoutMs, query_timeout: this.probeTimeoutMs });
    client.on('error', () => {});
    try {
      await client.connect();
      if (this.target.targetSessionAttrs === 'any') return undefined;
      if (this.target.targetSessionAttrs === 'primary') {
        const { rows } = await client.query<{ recovery: boolean }>('select pg_is_in_recovery() as recovery');
        return rows[0]?.recovery ? 'is in recovery (a standby)' : undefined;
      }
      const { rows } = await client.query<{ transaction_read_only: string }>('show transaction_read_only');
      return rows[0]?.transaction_read_only === 'off' ? undefined : 'is read only';
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      return `did not answer (${code ?? message ?? 'error'})`;
    } finally {
      void client.end().catch(() => {});
    }
  }
}
