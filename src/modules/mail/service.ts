// Email to SMS and back. The SMTP listener (src/mail/) turns an email into SMS and remembers,
// per account and number, who sent it; an SMS the account then receives from that number goes
// back by email to that sender, from <number>@<SMTP_DOMAIN>, so that the sender's mail program
// threads the conversation and a reply to it comes back in as SMS.
import type { Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import { maskPhone } from '../../common/logger.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import * as senders from './repository.ts';
import type { MailRelay, MailSenderRow } from './types.ts';

export class MailService {
  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly relay: MailRelay,
    /** SMTP_DOMAIN; none: email to SMS is off, and nothing goes back by email. */
    private readonly domain: string | undefined,
  ) {}

  /** Remembers who wrote to `phone` by email, in the transaction that stores the SMS. */
  async rememberSender(db: Executor, accountId: string, phone: string, sender: string): Promise<void> {
    await senders.rememberSender(db, accountId, phone, sender.toLowerCase(), new Date(this.clock.now()));
  }

  async senderFor(accountId: string, phone: string): Promise<string | undefined> {
    return senders.senderFor(this.db, accountId, phone);
  }

  /** A page of the account's senders, by number after `after`, for the account export. */
  exportPage(accountId: string, after: string | undefined, limit: number): Promise<MailSenderRow[]> {
    return senders.sendersPage(this.db, accountId, after, limit);
  }

  /**
   * The retention sweep: a sender not written to since `before` is forgotten (a number kept past
   * the account's retention would outlive the SMS it came from); up to `limit` a call.
   */
  forgetBefore(accountId: string, before: Date, limit: number): Promise<number> {
    return senders.forgetSendersBefore(this.db, accountId, before, limit);
  }

  /** Heard once an incoming SMS is committed: sends it by email to whoever last emailed its number. */
  readonly incomingStored = async (sms: IncomingSmsRow): Promise<void> => {
    if (!this.domain || sms.is_encrypted) return;
    const sender = await this.senderFor(sms.account_id, sms.phone);
    if (!sender) return;
    try {
      await this.relay.send({ from: `${sms.phone}@${this.domain}`, to: sender, subject: `SMS from ${sms.phone}`, text: sms.message });
      this.logger.info({ accountId: sms.account_id, from: maskPhone(sms.phone), incomingId: sms.id }, 'SMS reply sent by email');
    } catch (error) {
      this.logger.warn({ err: error, accountId: sms.account_id, from: maskPhone(sms.phone), incomingId: sms.id }, 'SMS reply not sent by email');
    }
  };
}
