// Telling a database outage from any other failure, and logging an outage once: pure, below the
// storage layer, so that work repeated by a timer (common/periodic-run.ts) can hold its lines
// through an outage as the database's own users do (storage/database-errors.ts).
import type { Logger } from './logger.ts';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTCONN', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01-57P03
 * (shut down by an administrator, crash restart, not accepting connections yet), 53300 (too
 * many connections) and 57014 (a statement cancelled, by DATABASE_STATEMENT_TIMEOUT or by an
 * administrator: a server too slow to answer in time, which a client is told to retry, 503),
 * and 25006 (a write refused as read-only: the server was the primary and is a standby now, or an
 * address names a standby; the gateway looks for the primary meanwhile).
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[1-3]|57014|53300|25006)$/;

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
