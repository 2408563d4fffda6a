// Conversations: one per remote number of the account, moved on by the SMS it sends (heard on
// "sms.queued") and receives (heard on "incoming.stored", in the transaction that stores it, so
// the unread count commits or fails with the SMS). The messages themselves stay where their
// modules keep them; the thread is read through them (src/use-cases/conversation-thread.ts).
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { CoalescingWriter } from '../../storage/coalescing-writer.ts';
import type { Clock } from '../../common/clock.ts';
import { AppError } from '../../common/errors.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DomainEventListener } from '../../events/domain-events.ts';
import type { SmsRecord } from '../messages/types.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import * as conversations from './repository.ts';

/**
 * A fleet health check between the account's own SIMs is no conversation with anyone; an
 * encrypted SMS's recipient is ciphertext the gateway cannot read, new with every SMS, so it
 * would open a conversation of its own each time.
 */
function hasConversation(sms: SmsRecord): boolean {
  return sms.kind !== 'canary' && !sms.is_encrypted;
}

export class ConversationService {
  /**
   * SMS already recorded in the transaction that stored them. The same object is heard again
   * once it commits; a single SMS written by the coalesced insert has no transaction of its own
   * and is heard only then. Weak: an SMS whose transaction failed is simply forgotten.
   */
  private readonly recordedInTransaction = new WeakSet<SmsRecord>();

  /**
   * SMS heard only once committed (the coalesced insert's), recorded a few milliseconds later,
   * many per statement: a burst of SMS to one number moves its conversation once per write
   * instead of queueing each SMS behind the last one's row lock.
   */
  private readonly committedSends: CoalescingWriter<conversations.OutgoingActivity>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly defaultPhoneRegion: string | undefined,
    logger: Logger,
  ) {
    this.committedSends = new CoalescingWriter({
      delayMs: 10,
      maxBatch: 500,
      merge: (waiting, arriving) => (arriving.at >= waiting.at ? arriving : waiting),
      write: (batch) => conversations.recordOutgoing(db, batch),
      logger,
      whileDatabaseDown: 'conversations of SMS sent meanwhile held until it answers',
      failed: 'conversations not moved by sent SMS',
    });
  }

  /** Writes the sends still waiting; the database is about to close. */
  stop(): Promise<void> {
    return this.committedSends.close();
  }

  /** The conversation's key for a number as a client or a phone wrote it. */
  keyOf(raw: string): string {
    const text = raw.trim();
    if (text.startsWith('hmac:')) return text;
    return normalizePhone(text, this.defaultPhoneRegion) ?? text;
  }

  /** Listens to "sms.queued": the SMS becomes its conversation's newest outgoing one. */
  readonly smsQueued: DomainEventListener<SmsRecord> = {
    inTransaction: async (trx, sms) => {
      if (!hasConversation(sms)) return;
      await conversations.recordOutgoing(trx, [outgoing(sms)]);
      this.recordedInTransaction.add(sms);
    },
    committed: (sms) => {
      if (hasConversation(sms) && !this.recordedInTransaction.has(sms)) this.committedSends.add(`${sms.account_id}/${sms.phone}`, outgoing(sms));
    },
  };

  /** Listens to "incoming.stored", in its transaction: one more unread in the sender's conversation. */
  readonly incomingStored: DomainEventListener<IncomingSmsRow> = {
    inTransaction: async (trx, sms) => {
      // The sender of an encrypted SMS is ciphertext, new with every SMS: no number to thread by.
      if (sms.is_encrypted) return;
      await conversations.recordIncoming(trx, sms.account_id, this.keyOf(sms.phone), sms.id, sms.created_at);
    },
  };


  list(accountId: string, limit: number, cursor?: Cursor, unreadOnly = false): Promise<conversations.ConversationRow[]> {
    return conversations.listConversations(this.db, accountId, limit, cursor, unreadOnly);
  }

  async get(accountId: string, phone: string): Promise<conversations.ConversationRow> {
    const row = await conversations.findConversation(this.db, accountId, this.keyOf(phone));
    if (!row) throw new AppError('conversation_not_found');
    return row;
  }

  /** Nothing unread any more; answers the conversation. */
  async markRead(accountId: string, phone: string): Promise<conversations.ConversationRow> {
    const row = await conversations.markRead(this.db, accountId, this.keyOf(phone), new Date(this.clock.now()));
    if (!row) throw new AppError('conversation_not_found');
    return row;
  }

  /** Retention: numbers of conversations quiet since `before` become their hashes, a batch at a time. */
  hashQuietPhones(accountId: string, before: Date, batch: number, hash: (phone: string) => string): Promise<number> {
    return this.db.transaction((trx) => conversations.hashQuietPhones(trx, accountId, before, batch, hash));
  }

  pageForExport(accountId: string, after: string | undefined, limit: number): Promise<conversations.ConversationRow[]> {
    return conversations.pageForExport(this.db, accountId, after, limit);
  }
}

function outgoing(sms: SmsRecord): conversations.OutgoingActivity {
  return { accountId: sms.account_id, phone: sms.phone, smsId: sms.id, at: sms.created_at };
}
