// The periodic side of an account's retention setting: once at start, then hourly, the content
// of messages older than the account keeps it is removed, rows staying for statistics (status,
// times, counts): the text of SMS both ways, a data SMS's payload, a sent MMS's subject, a
// received MMS's text and subject, the account's media (uploaded and received MMS parts), and
// the finished webhook deliveries that repeated them. With hash_recipients the numbers of those
// messages, of a sent MMS's recipients, of a received MMS's sender and recipients, of calls and
// of conversations quiet since then become salted hashes. Who emailed a number (email to SMS) is
// forgotten once quiet as long. Each run also removes the files whose rows went (media, call
// recordings: queued with their deletion, account deletions included), retrying what failed.
// Work goes in batches, each its own statement, so no run holds many rows locked or the event
// loop busy. The cut-off comes from the gateway's clock, so a test can move time. A failed run is
// logged; the next one tries again.
import type { Clock } from '../common/clock.ts';
import type { Logger } from '../common/logger.ts';
import { PeriodicRun } from '../common/periodic-run.ts';
import type { CallService } from '../modules/calls/service.ts';
import type { ConversationService } from '../modules/conversations/service.ts';
import type { IncomingService } from '../modules/incoming/service.ts';
import type { MessageService } from '../modules/messages/service.ts';
import type { MailService } from '../modules/mail/service.ts';
import type { MmsRedaction } from '../modules/mms/redaction/service.ts';
import type { AccountRetention, RetentionService } from '../modules/retention/service.ts';
import type { WebhookService } from '../modules/webhooks/registration/service.ts';

const EVERY_MS = 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
const ACCOUNTS_PER_PAGE = 100;

/** A store whose files of deleted rows are removed from a durable queue (media, recordings). */
export interface QueuedFileRemoval {
  removeQueuedFiles(): Promise<number>;
}

export interface RetentionSweepParts {
  retention: RetentionService;
  messages: MessageService;
  incoming: IncomingService;
  conversations: ConversationService;
  /** Sent MMS's subjects and recipients, received MMS, media. */
  mmsRedaction: MmsRedaction;
  /** Webhook deliveries repeat the text and number of the events they carried. */
  webhooks: WebhookService;
  /** The call log's numbers. */
  calls: CallService;
  /** Who emailed which number: forgotten with the text of the SMS they sent. */
  mail: MailService;
  /** The stores whose queued removals each run carries out. */
  files: QueuedFileRemoval[];
}

export interface SweepOutcome {
  sms: number;
  incoming: number;
  conversations: number;
  mms: number;
  incoming_mms: number;
  media: number;
  webhook_deliveries: number;
  calls: number;
  /** Files removed from the stores (queued by this run's deletions or earlier ones). */
  files: number;
}

const NOTHING: SweepOutcome = { sms: 0, incoming: 0, conversations: 0, mms: 0, incoming_mms: 0, media: 0, webhook_deliveries: 0, calls: 0, files: 0 };

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
    const total: SweepOutcome = { ...NOTHING };
    let after: string | undefined;
    for (;;) {
      const accounts = await this.parts.retention.limited(after, ACCOUNTS_PER_PAGE);
      for (const account of accounts) {
        const done = await this.sweep(account);
        for (const key of Object.keys(total) as (keyof SweepOutcome)[]) total[key] += done[key];
      }
      if (accounts.length < ACCOUNTS_PER_PAGE) break;
      after = accounts[accounts.length - 1]!.accountId;
    }
    for (const store of this.parts.files) total.files += await store.removeQueuedFiles();
    if (Object.values(total).some((count) => count > 0)) this.logger.info(total, 'retention: message content redacted');
    return total;
  }

  private async sweep({ accountId, keepTextDays, hash }: AccountRetention): Promise<SweepOutcome> {
    const { messages, incoming, conversations, mmsRedaction, webhooks, calls, mail } = this.parts;
    const before = new Date(this.clock.now() - keepTextDays * DAY_MS);
    const done: SweepOutcome = { ...NOTHING };
    done.sms = await this.drain((batch) => messages.redactBefore(accountId, before, batch, hash));
    // After the sms rows: a sent MMS follows its own row's redaction.
    done.mms = await this.drain((batch) => mmsRedaction.redactSent(accountId, batch, hash));
    done.incoming = await this.drain((batch) => incoming.redactBefore(accountId, before, new Date(this.clock.now()), batch, hash));
    done.incoming_mms = await this.drain((batch) => mmsRedaction.redactReceived(accountId, before, batch, hash));
    done.media = await this.drain((batch) => mmsRedaction.deleteMediaBefore(accountId, before, batch));
    done.webhook_deliveries = await this.drain((batch) => webhooks.forgetDeliveriesBefore(accountId, before, batch));
    if (hash) {
      done.conversations = await this.drain((batch) => conversations.hashQuietPhones(accountId, before, batch, hash));
      done.calls = await this.drain((batch) => calls.hashPhonesBefore(accountId, before, batch, hash));
    }
    await this.drain((batch) => mail.forgetBefore(accountId, before, batch));
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
