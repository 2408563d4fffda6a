// The periodic side of an account's retention setting: once at start, then hourly, the text of
// SMS older than the account keeps it is removed from the rows of both directions (status,
// times and counts stay, for statistics), and with hash_recipients their numbers, and those of
// conversations quiet since then, become salted hashes; who emailed a number (email to SMS) is
// forgotten once quiet as long. Work goes in batches, each its own
// statement, so no run holds many rows locked or the event loop busy. The cut-off comes from the
// gateway's clock, so a test can move time. A failed run is logged; the next one tries again.
import type { Clock } from '../common/clock.ts';
import type { Logger } from '../common/logger.ts';
import { PeriodicRun } from '../common/periodic-run.ts';
import type { ConversationService } from '../modules/conversations/service.ts';
import type { IncomingService } from '../modules/incoming/service.ts';
import type { MessageService } from '../modules/messages/service.ts';
import type { MailService } from '../modules/mail/service.ts';
import type { AccountRetention, RetentionService } from '../modules/retention/service.ts';

const EVERY_MS = 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
const ACCOUNTS_PER_PAGE = 100;

export interface RetentionSweepParts {
  retention: RetentionService;
  messages: MessageService;
  incoming: IncomingService;
  conversations: ConversationService;
  /** Who emailed which number: forgotten with the text of the SMS they sent. */
  mail: MailService;
}

export interface SweepOutcome {
  sms: number;
  incoming: number;
  conversations: number;
}

export class RetentionSweep extends PeriodicRun<SweepOutcome> {
  constructor(
    private readonly parts: RetentionSweepParts,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly batchSize = 500,
    everyMs = EVERY_MS,
  ) {
    super(() => this.sweepAll(), {
      everyMs,
      runAtStart: true,
      failures: { logger, whileDatabaseDown: 'retention sweep retried at its next run', message: 'retention sweep failed' },
    });
  }

  private async sweepAll(): Promise<SweepOutcome> {
    const total: SweepOutcome = { sms: 0, incoming: 0, conversations: 0 };
    let after: string | undefined;
    for (;;) {
      const accounts = await this.parts.retention.limited(after, ACCOUNTS_PER_PAGE);
      for (const account of accounts) {
        const done = await this.sweep(account);
        total.sms += done.sms;
        total.incoming += done.incoming;
        total.conversations += done.conversations;
      }
      if (accounts.length < ACCOUNTS_PER_PAGE) break;
      after = accounts[accounts.length - 1]!.accountId;
    }
    if (total.sms + total.incoming + total.conversations > 0) this.logger.info(total, 'retention: message text redacted');
    return total;
  }

  private async sweep({ accountId, keepTextDays, hash }: AccountRetention): Promise<SweepOutcome> {
    const before = new Date(this.clock.now() - keepTextDays * DAY_MS);
    const done: SweepOutcome = { sms: 0, incoming: 0, conversations: 0 };
    done.sms = await this.drain((batch) => this.parts.messages.redactBefore(accountId, before, batch, hash));
    done.incoming = await this.drain((batch) => this.parts.incoming.redactBefore(accountId, before, new Date(this.clock.now()), batch, hash));
    if (hash) done.conversations = await this.drain((batch) => this.parts.conversations.hashQuietPhones(accountId, before, batch, hash));
    await this.drain((batch) => this.parts.mail.forgetBefore(accountId, before, batch));
    return done;
  }

  /** Runs `step` until a batch comes back short. */
  private async drain(step: (batch: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const done = await step(this.batchSize);
      total += done;
      if (done < this.batchSize) return total;
      // Let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
