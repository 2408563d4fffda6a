// The Idempotency-Key of a request, and the mark of an answer replayed from it, as every route that
// takes the header reads and writes them (the Extended and legacy SMS and MMS sends).
import { IDEMPOTENCY_HEADER, type IdempotentResult } from '../modules/idempotency/service.ts';
import type { RouteResult } from './route.ts';

/** The request's Idempotency-Key; an empty header is none. */
export function idempotencyKey(ctx: { get(name: string): string }): string | undefined {
  const key = ctx.get(IDEMPOTENCY_HEADER);
  return key === '' ? undefined : key;
}

/** The answer of an idempotent request; a replay says so in Idempotent-Replayed. */
export function withReplayHeader(result: IdempotentResult): RouteResult {
  return { status: result.status, body: result.body, ...(result.replayed ? { headers: { 'Idempotent-Replayed': 'true' } } : {}) };
}
