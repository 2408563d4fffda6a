// How many bulk sends one account may have under way at once. A bulk send reads, parses and
// checks up to 2 MiB and 1,000 messages; letting one account run many side by side would let it
// take the whole process for itself while other accounts' single sends wait. Beyond the limit
// the request is refused at once (429 with Retry-After), before its body is read.
import type { Context } from 'koa';
import { AppError } from '../../../common/errors.ts';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';

/** Bulk sends of one account under way at once. */
export const BULK_PER_ACCOUNT = 2;
/** What a refused client is told to wait: a bulk send usually ends well within it. */
export const BULK_RETRY_AFTER_SECONDS = 1;

export class BulkGate {
  private readonly running = new Map<string, number>();

  constructor(private readonly limit = BULK_PER_ACCOUNT) {}

  /** Takes a place for the caller's account, or throws 429; answers the function that gives it back. */
  readonly admit = (auth: RequestAuth, ctx: Context): (() => void) => {
    const account = auth.accountId;
    const now = this.running.get(account) ?? 0;
    if (now >= this.limit) {
      ctx.set('Retry-After', String(BULK_RETRY_AFTER_SECONDS));
      throw new AppError(
        'too_many_bulk_requests',
        `this account already has ${now} bulk sends under way (at most ${this.limit} at once); wait for one to be answered, then retry`,
      );
    }
    this.running.set(account, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(account) ?? 1) - 1;
      if (left > 0) this.running.set(account, left);
      else this.running.delete(account);
    };
  };

  /** Bulk sends under way for the account (for tests and metrics). */
  underWay(accountId: string): number {
    return this.running.get(accountId) ?? 0;
  }
}
