// Email to SMS and back. The SMTP listener (src/api/mail/) turns an email into SMS and remembers,
// per account and number, who sent it; an SMS the account then receives from that number goes
// back by email to that sender, from <number>@<SMTP_DOMAIN>, so that the sender's mail program
// threads the conversation and a reply to it comes back in as SMS. What of a mail becomes the SMS
// text is the account's choice, or the gateway's SMTP_TEXT while it has made none.
import type { Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import { maskPhone } from '../../common/logger.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import * as senders from './repository.ts';
import * as settings from './settings-repository.ts';
import type { MailRelay, MailSenderRow, MailSettings, MailTextSource } from './types.ts';

export class MailService {
  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly relay: MailRelay,
    /** SMTP_DOMAIN; none: email to SMS is off, and nothing goes back by email. */
    private readonly domain: string | undefined,
    /** SMTP_TEXT: the mail text of an account that has not chosen its own. */
    private readonly defaultText: MailTextSource,
  ) {}

  async settings(accountId: string): Promise<MailSettings> {
    const row = await settings.findSettings(this.db, accountId);
    return row ? { text: row.text, chosen: true, updated_at: row.updated_at } : { text: this.defaultText, chosen: false, updated_at: null };
  }

  /** Sets what of the account's mail becomes the SMS text; null: back to the gateway's SMTP_TEXT. */
  async setText(accountId: string, text: MailTextSource | null): Promise<MailSettings> {
    if (text === null) await settings.forgetText(this.db, accountId);
    else await settings.saveText(this.db, accountId, text, new Date(this.clock.now()));
    return this.settings(accountId);
  }

  /** What of a mail the account sent over SMTP becomes the SMS text. */
  async textSourceFor(accountId: string): Promise<MailTextSource> {
    return (await this.settings(accountId)).text;
  }

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
