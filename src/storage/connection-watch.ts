// Finds the pooled PostgreSQL connections that stopped answering and closes them, so that the
// pool opens new ones. A failover, or a firewall that forgets a connection's state, leaves the
// open connections silent while new ones would work: without this, every query sent on one of
// them waits until TCP gives up (about 15 minutes), and once the pool's connections all wait so,
// every request waits for the pool and is refused.
//
// A query that has heard nothing back for DATABASE_STALL_TIMEOUT may only be slow: PostgreSQL
// sends nothing while a statement runs. So the watch asks the server, on a connection of its own,
// what each silent connection's backend is doing. Running ("active", a lock wait included): the
// query is slow, left alone. Idle, or no such backend (another server after a failover): the
// answer was lost or the query never arrived, and the connection is closed; its query fails as
// a lost connection does (503 to an API client, retried by the loops). The idle connections
// that have heard nothing since that silence began are closed with it: they were opened before
// the same fault. When the server cannot be asked (no new connection either), only a query silent
// past the statement timeout (plus a margin) is judged dead: a live server would have cancelled it.
import type { Socket } from 'node:net';
import pg from 'pg';
import type { Logger } from '../common/logger.ts';

/** What pg's Client holds that the watch reads: its socket, its query on the wire, its backend. */
interface PgClient {
  processID: number | null;
  connection: { stream: Socket };
  _getActiveQuery?: () => object | null | undefined;
  once(event: 'end', listener: () => void): unknown;
}

interface Watched {
  client: PgClient;
  /** When bytes last came from the server (Date.now()). */
  lastHeard: number;
  /** The query on the wire, and since when it has been known to wait. */
  waiting: { query: object; since: number } | undefined;
}

export interface ConnectionWatchSettings {
  /** How a connection of the watch's own is made (the pool's settings; with several hosts, the primary's). */
  connection: pg.ClientConfig | (() => Promise<pg.ClientConfig>);
  /** A query silent this long has its backend looked at. */
  stallTimeoutMs: number;
  /** A query silent this long is dead without asking (the statement timeout and a margin); 0: never. */
  deadAfterMs: number;
}

/** Time after its last change for which a backend seen idle may still have an answer on its way. */
const ANSWER_IN_FLIGHT_MS = 1_000;

export class ConnectionWatch {
  private readonly watched = new Set<Watched>();
  private readonly timer: NodeJS.Timeout;
  private checking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly settings: ConnectionWatchSettings,
    private readonly logger?: Logger,
  ) {
    // Ticks a few times per stall timeout: a silent connection is judged within about 1.3 of it.
    this.timer = setInterval(() => this.tick(), Math.max(100, Math.min(1_000, Math.floor(settings.stallTimeoutMs / 3))));
    this.timer.unref();
  }

  /** Follows a new pooled connection until it ends. */
  watch(client: PgClient): void {
    const entry: Watched = { client, lastHeard: Date.now(), waiting: undefined };
    this.watched.add(entry);
    client.connection.stream.on('data', () => (entry.lastHeard = Date.now()));
    client.once('end', () => this.watched.delete(entry));
  }

  /** Stops judging; waits for a look at the server on its way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.checking;
  }

  private tick(): void {
    if (this.checking || this.stopped) return;
    const now = Date.now();
    const silent: Watched[] = [];
    for (const entry of this.watched) {
      const query = entry.client._getActiveQuery?.() ?? undefined;
      if (!query) {
        entry.waiting = undefined;
        continue;
      }
      if (entry.waiting?.query !== query) entry.waiting = { query, since: now };
      if (silence(entry, now) >= this.settings.stallTimeoutMs) silent.push(entry);
    }
    if (silent.length === 0) return;
    this.checking = this.judge(silent, now).finally(() => (this.checking = undefined));
  }

  private async judge(silent: Watched[], now: number): Promise<void> {
    const heard = new Map(silent.map((entry) => [entry, { query: entry.client._getActiveQuery?.(), lastHeard: entry.lastHeard }]));
    const backends = await this.backends(silent.map((entry) => entry.client.processID).filter((pid): pid is number => pid !== null));
    if (this.stopped) return;
    const dead: Watched[] = [];
    // One whose answer came meanwhile was only late to be read (an event loop held up for seconds).
    const stillSilent = silent.filter((one) => one.client._getActiveQuery?.() === heard.get(one)?.query && one.lastHeard === heard.get(one)?.lastHeard);
    for (const entry of stillSilent) {
      const backend = entry.client.processID === null ? undefined : backends?.get(entry.client.processID);
      if (backends === undefined) {
        if (this.settings.deadAfterMs > 0 && silence(entry, now) >= this.settings.deadAfterMs) dead.push(entry);
      } else if (backend && (backend.state === 'active' || backend.quietMs < ANSWER_IN_FLIGHT_MS)) {
        // Slow, not dead: looked at again after another stall timeout.
        if (entry.waiting) entry.waiting.since = Date.now();
      } else {
        dead.push(entry);
      }
    }
    if (dead.length === 0) return;
    // Idle connections silent since before the first dead one went silent met the same fault.
    const faultSince = Math.min(...dead.map((entry) => Math.max(entry.waiting?.since ?? now, entry.lastHeard)));
    const idle = [...this.watched].filter((entry) => !entry.client._getActiveQuery?.() && entry.lastHeard <= faultSince);
    for (const entry of [...dead, ...idle]) {
      this.watched.delete(entry);
      // Closed here rather than ended: an end waits for the server's goodbye, which will not come.
      // pg fails the connection's query and marks it, and the pool replaces it.
      entry.client.connection.stream.destroy();
    }
    this.logger?.warn(
      { hung: dead.length, idle: idle.length, silentMs: now - faultSince, serverAsked: backends !== undefined },
      'database connections stopped answering: closed, the pool opens new ones',
    );
  }

  /**
   * What the server says each backend is doing, asked on a new connection; undefined when no
   * answer came within the stall timeout (the server is unreachable for new connections too).
   */
  private async backends(pids: number[]): Promise<Map<number, { state: string | null; quietMs: number }> | undefined> {
    const timeoutMs = this.settings.stallTimeoutMs;
    let client: pg.Client | undefined;
    try {
      // After a failover the server asked is the new primary: it knows none of the old backends.
      const connection = typeof this.settings.connection === 'function' ? await this.settings.connection() : this.settings.connection;
      client = new pg.Client({ ...connection, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
      client.on('error', () => {});
      await client.connect();
      const { rows } = await client.query<{ pid: number; state: string | null; quiet_ms: number | null }>(
        `select pid, state, (extract(epoch from clock_timestamp() - state_change) * 1000)::int8 as quiet_ms
           from pg_stat_activity where pid = any($1::int4[])`,
        [pids],
      );
      return new Map(rows.map((row) => [Number(row.pid), { state: row.state, quietMs: Number(row.quiet_ms ?? Infinity) }]));
    } catch {
      return undefined;
    } finally {
      // A connection whose query timed out is closed outright (pg ends it so when a query is on the wire).
      void client?.end().catch(() => {});
    }
  }
}

/** How long `entry`'s query has heard nothing back; 0 when none waits. */
function silence(entry: Watched, now: number): number {
  return entry.waiting ? now - Math.max(entry.waiting.since, entry.lastHeard) : 0;
}
