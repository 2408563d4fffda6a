// Idempotency-Key on the requests that create SMS (POST /sms, POST /sms/bulk, legacy /sms/send).
// A client whose request was cut off (connection reset, gateway killed) sends it again with the
// same key and gets the first response back instead of a second SMS:
//
// - The key is claimed, the SMS written and the response stored in one transaction, so either
//   all of it happened or none: a crash never leaves an SMS without its stored response.
// - Two requests with one key at once: the second waits for the first's transaction, then
//   replays its response (one SMS).
// - Same key, different request (method, path or body): 422 idempotency_key_reused.
// - Only successful responses are kept: a request refused with 4xx wrote nothing, so sending it
//   again, corrected, under the same key is allowed.
// - Keys are kept 24 hours per account.
import { createHash } from 'node:crypto';
import type { Database, Executor } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError } from '../../common/errors.ts';
import { claimKey, pruneKeys, storedResponse, storeResponse, type StoredResponse } from './repository.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const KEEP_KEYS_MS = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  /** The header's value, or undefined when the request carried none. */
  key: string | undefined;
  /** What makes two requests "the same": the operation and its body. */
  operation: string;
  body: unknown;
}

export interface IdempotentResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

export class IdempotencyService {
  private lastPrune = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs a create once per key: `prepare` checks the request (reads only, outside any
   * transaction), `commit` writes it. Without a key, commit runs with no transaction of its own;
   * with one, inside the transaction that holds the key (everything it writes must use `trx`).
   * A request whose key already has a stored response is answered from it before `prepare`, so
   * a retry replays even when its checks would now fail (its device was deleted since).
   */
  async run<P>(
    accountId: string,
    request: IdempotentRequest,
    prepare: () => Promise<P>,
    commit: (prepared: P, trx?: Executor) => Promise<{ status: number; body: unknown }>,
  ): Promise<IdempotentResult> {
    if (request.key === undefined) return { ...(await commit(await prepare())), replayed: false };
    const key = checkKey(request.key);
    const fingerprint = fingerprintOf(request.operation, request.body);
    const now = this.clock.now();
    this.pruneNow(now);
    const claim = { accountId, key, fingerprint, now: new Date(now), expiredBefore: new Date(now - KEEP_KEYS_MS) };
    const earlier = await storedResponse(this.db, claim);
    if (earlier) return replay(earlier, fingerprint);
    const prepared = await prepare();
    return this.db.transaction(async (trx) => {
      const stored = await claimKey(trx, claim);
      if (stored) return replay(stored, fingerprint);
      const result = await commit(prepared, trx);
      await storeResponse(trx, accountId, key, result.status, result.body);
      return { ...result, replayed: false };
    });
  }

  private pruneNow(now: number): void {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    void pruneKeys(this.db, new Date(now - KEEP_KEYS_MS)).catch(() => {
      // Pruning is housekeeping: the next request tries again.
    });
  }
}

function replay(stored: StoredResponse, fingerprint: string): IdempotentResult {
  if (stored.fingerprint !== fingerprint) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request in the last 24 hours; use a new key');
  }
  return { status: stored.status_code, body: stored.response, replayed: true };
}

/** 1-255 visible ASCII characters (a UUID is the usual choice). */
function checkKey(raw: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(raw)) {
    const message = 'Idempotency-Key must be 1-255 visible ASCII characters, such as a UUID';
    throw new AppError('validation_failed', message, [{ field: 'Idempotency-Key', in: 'header', message }]);
  }
  return raw;
}

function fingerprintOf(operation: string, body: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(body)).digest('hex');
}

/** JSON with object keys sorted, so that key order does not make two bodies differ. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
