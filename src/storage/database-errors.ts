// Telling a database outage from a bad statement. An outage (server stopped or restarting,
// network cut, pool starved of connections) passes: work that waits and retries succeeds once
// the database is back. Anything else (a constraint, bad data, a bug) fails the same way however
// often it is retried. Device message handlers hold their messages through an outage, the HTTP
// layer answers 503 instead of 500, timers log the outage once instead of once per tick. What an
// outage is, and logging it once, are told apart below storage (src/common/outage-notice.ts), so
// that a timer in common can use them too.
import type { Knex } from 'knex';
import { isDatabaseUnavailable, type OutageNotice } from '../common/outage-notice.ts';

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

/** Socket errors of a connection the server end dropped. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED']);

/**
 * Whether an error may mean the server it came from is no longer the primary, so that the
 * gateway looks for the one that is (database-primary.ts): a write refused on a server now read
 * only (25006, the old primary turned standby), a server shutting down or restarting (57P01 to
 * 57P03), a connection reset or ended under a statement. Pure.
 */
export function mayMeanFailover(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code === '25006' || /^57P0[1-3]$/.test(code) || DROPPED_CODES.has(code))) return true;
  return typeof message === 'string' && /Connection terminated/i.test(message);
}
