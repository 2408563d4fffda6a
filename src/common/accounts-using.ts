// Which accounts have taken up a feature that only some use (SMPP, the Twilio-compatible API),
// known without a query where every SMS passes: a status change or an incoming SMS of an account
// that never had a credential of that feature owes it nothing, and is let by without asking the
// database about it.
//
// The set only grows. It is read whole from the database the first time it is asked (and again
// after this node may have missed news from the others), and an account joins it the moment this
// node sees it take the feature up: a credential issued here, or used here (a bind, a request),
// which comes before any SMS of that feature is made. The other nodes are told then, so that a
// status change heard on the node holding the SMS's phone finds the account too. An account that
// stops using the feature stays: it is asked about as every account was before, nothing is missed.
import type { Executor } from '../storage/database.ts';
import type { CacheInvalidation } from '../cluster/invalidation.ts';

export class AccountsUsing {
  private readonly known = new Set<string>();
  /** The whole set read from the database; undefined until it is asked for, and again after news may have been missed. */
  private reading: Promise<void> | undefined;

  /**
   * `readAll`: every account that has (or had) a credential of the feature. `invalidation`: how the
   * other nodes are told, and tell this one. An account taking the feature up is told as a change of
   * the account: a node of an older version then only reads the account afresh, and any change of an
   * account heard from another node adds it here, which costs a query for its SMS, never a lost one.
   */
  constructor(
    private readonly readAll: (db: Executor) => Promise<string[]>,
    private readonly invalidation?: CacheInvalidation,
  ) {
    invalidation?.on('account', (accountId) => void this.known.add(accountId));
    invalidation?.onReset(() => (this.reading = undefined));
  }

  /** Those of `accountIds` that may have something of the feature; the first call reads the set (in `db`, the caller's transaction). */
  async among(db: Executor, accountIds: Iterable<string>): Promise<Set<string>> {
    for (;;) {
      const mine = this.reading === undefined;
      const reading = (this.reading ??= this.read(db));
      try {
        await reading;
        break;
      } catch (error) {
        // Another caller's read, in its own transaction, failed with it: this caller reads in its own.
        if (mine) throw error;
      }
    }
    const using = new Set<string>();
    for (const accountId of accountIds) if (this.known.has(accountId)) using.add(accountId);
    return using;
  }

  /** This node saw the account take the feature up; the other nodes are told the first time. */
  tookUp(accountId: string): void {
    if (this.known.has(accountId)) return;
    this.known.add(accountId);
    this.invalidation?.publish('account', accountId);
  }

  private async read(db: Executor): Promise<void> {
    try {
      for (const accountId of await this.readAll(db)) this.known.add(accountId);
    } catch (error) {
      // Asked again next time: a failed read (its transaction rolled back, the database away) must not stand for an empty set.
      this.reading = undefined;
      throw error;
    }
  }
}
