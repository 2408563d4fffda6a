// Telling a database outage from a bad statement. An outage (server stopped or restarting,
// network cut, pool starved of connections) passes: work that waits and retries succeeds once
// the database is back. Anything else (a constraint, bad data, a bug) fails the same way however
// often it is retried. Device message handlers hold their messages through an outage, the HTTP
// layer answers 503 instead of 500, timers log the outage once instead of once per tick.
import type { Knex } from 'knex';
import type { Logger } from '../common/logger.ts';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTCONN', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01-57P03
 * (shut down by an administrator, crash restart, not accepting connections yet), 53300 (too
 * many connections) and 57014 (a statement cancelled, by DATABASE_STATEMENT_TIMEOUT or by an
 * administrator: a server too slow to answer in time, which a client is told to retry, 503).
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[1-3]|57014|53300)$/;

/**
 * What pg and knex say, without a code, when a connection died or none could be had (knex puts
 * the statement in front: "COMMIT; - Connection terminated unexpectedly").
 */
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /connection error and is not queryable/i, /Timeout acquiring a connection/i, /Client was closed and is not queryable/i];

/** Whether `error` says the database is unreachable (a passing outage), not that the work was wrong. Pure. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, name, message, cause, errors } = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}

/**
 * Whether PostgreSQL rolled the transaction back whole because it lost a race for locks: a
 * deadlock (40P01) or a serialization failure (40001). Nothing of it was written, and the same
 * work run again normally succeeds, as PostgreSQL itself advises. Pure.
 */
export function isLostLockRace(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '40P01' || code === '40001';
}

/**
 * Whether a failure may be one row's, so that the rest of its batch would go in without it: a
 * data exception (SQLSTATE class 22, a value out of range) or a broken constraint (class 23, a
 * row whose account was just deleted), or an error that is no database's at all (the code around
 * the statement failing on one row's data). An outage, a lost race for locks and a statement the
 * database refuses whole (an unknown column during a rolling deploy, a server gone read-only)
 * meet every row alike. Pure.
 */
export function isRowLevelFailure(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('22') || code.startsWith('23');
}

/**
 * One component's view of an outage, for its logs: a warning when the first failure shows the
 * database unreachable, an info line when work succeeds again, nothing in between (a timer
 * ticking through a 20 s outage must not write a line per tick, nor a handler one per message).
 */
export class OutageNotice {
  private since: number | undefined;
  private failures = 0;

  constructor(
    private readonly logger: Logger,
    /** What waits meanwhile, for the log lines: "status reports held", "dispatch retried each sweep". */
    private readonly what: string,
  ) {}

  get ongoing(): boolean {
    return this.since !== undefined;
  }

  /** Records a failure; returns true when it is an outage (logged once), false for any other error. */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.failures++;
    if (this.since === undefined) {
      this.since = Date.now();
      this.logger.warn({ err: error }, `database unreachable: ${this.what}`);
    }
    return true;
  }

  /**
   * Records a success: ends the outage, if there was one, with one line. `startedAt` (Date.now()
   * when the work began): work that began before the outage did, such as a sweep whose queries
   * all ran just before, proves nothing about the database now.
   */
  succeeded(startedAt = Date.now()): void {
    if (this.since === undefined || startedAt < this.since) return;
    this.logger.info({ outageMs: Date.now() - this.since, failedAttempts: this.failures }, `database reachable again (was: ${this.what})`);
    this.since = undefined;
    this.failures = 0;
  }
}

/** What knex tells its listeners of a statement: the connection it runs on. */
interface StatementEvent {
  __knexUid?: string;
}

/**
 * Ends `notice`'s outage only on proof that the database answers again: a statement begun after
 * the outage did, on any connection of `db`, that succeeded. A request that read nothing (a
 * health check, a key already in the cache) proves nothing, and a statement begun before the
 * outage that is answered late says nothing of the database now. Statements on one connection
 * run one after another, so the connection names the statement between its start and its answer.
 * Returns what stops listening.
 */
export function endOutageWhenAnswered(db: Knex, notice: OutageNotice): () => void {
  const begunAt = new Map<string, number>();
  const onQuery = (statement: StatementEvent) => {
    if (notice.ongoing && statement.__knexUid) begunAt.set(statement.__knexUid, Date.now());
  };
  const onResponse = (_response: unknown, statement: StatementEvent) => {
    const startedAt = statement.__knexUid ? begunAt.get(statement.__knexUid) : undefined;
    if (startedAt === undefined) return;
    begunAt.clear();
    notice.succeeded(startedAt);
  };
  const onError = (_error: unknown, statement: StatementEvent) => {
    if (statement.__knexUid) begunAt.delete(statement.__knexUid);
  };
  db.on('query', onQuery).on('query-response', onResponse).on('query-error', onError);
  return () => {
    db.off('query', onQuery).off('query-response', onResponse).off('query-error', onError);
  };
}

/** Retry delays through an outage: doubling from `first` up to `max`; reset after a success. */
export class Backoff {
  private next: number;

  constructor(
    private readonly first = 250,
    private readonly max = 5_000,
  ) {
    this.next = first;
  }

  delay(): number {
    const delay = this.next;
    this.next = Math.min(this.max, this.next * 2);
    return delay;
  }

  reset(): void {
    this.next = this.first;
  }
}
