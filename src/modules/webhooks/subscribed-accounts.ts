// Whether an account has a webhook for some events, cached for a few seconds. Events that come in
// storms with no row of their own (devices connecting and disconnecting) ask it before writing:
// an account with no webhook for them should cost nothing then. The answer is forgotten at once
// when any node changes one of the account's webhooks (other nodes, and commands, tell over
// Redis: the webhooks feature publishes every change); whoever holds one forgets on that news.
import type { Executor } from '../../storage/database.ts';
import type { WebhookEvent } from './event-contract.ts';
import { hasWebhookFor } from './registration/repository.ts';

/** How long "this account has (no) webhook for these events" is believed. */
const BELIEVED_MS = 5_000;

export class SubscribedAccounts {
  private readonly known = new Map<string, { yes: boolean; until: number }>();
  /**
   * Reads under way: a storm asks about one account a thousand times within the same moment, and
   * one read answers them all. A change heard meanwhile drops it, so the answer it brings is used
   * by those who asked before the change and never kept.
   */
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly db: Executor,
    private readonly subscribedTo: WebhookEvent[],
  ) {}

  /** One of the account's webhooks changed, here or on another node. */
  forget(accountId: string): void {
    this.known.delete(accountId);
    this.asking.delete(accountId);
  }

  /** News from other nodes may have been missed. */
  forgetAll(): void {
    this.known.clear();
    this.asking.clear();
  }

  /** Whether one of the account's webhooks subscribes to one of the events. */
  async has(accountId: string): Promise<boolean> {
    const cached = this.known.get(accountId);
    if (cached && cached.until > Date.now()) return cached.yes;
    const asking = this.asking.get(accountId);
    if (asking) return asking;
    const read = hasWebhookFor(this.db, accountId, this.subscribedTo);
    this.asking.set(accountId, read);
    try {
      const yes = await read;
      if (this.asking.get(accountId) === read) {
        if (this.known.size > 100_000) this.known.clear();
        this.known.set(accountId, { yes, until: Date.now() + BELIEVED_MS });
      }
      return yes;
    } finally {
      if (this.asking.get(accountId) === read) this.asking.delete(accountId);
    }
  }
}
