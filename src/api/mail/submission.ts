// An email's SMS: one to each recipient, through the create-SMS use case (as POST /sms creates
// them), so that pacing, statuses and webhooks are the same. Every recipient is checked before
// any SMS is stored: an email is sent to all its recipients or to none. Who sent it is
// remembered per number, so that the number's reply goes back to them by email. The SMS text is
// the mail's subject, body or both, as the account that logged in chose (else SMTP_TEXT).
import { AppError } from '../../common/errors.ts';
import { countCharacters, exceedsCharacters } from '../../common/characters.ts';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import type { Executor } from '../../storage/database.ts';
import { createSms, type CreateSmsParts } from '../../use-cases/create-sms.ts';
import type { MessageService } from '../../modules/messages/service.ts';
import type { MailService } from '../../modules/mail/service.ts';
import { smsTextOf } from '../../modules/mail/text.ts';
import type { MailTextSource } from '../../modules/mail/types.ts';

export interface MailSubmissionParts extends CreateSmsParts {
  db: Executor;
  messages: MessageService;
  mail: MailService;
}

/** Why an email was not turned into SMS, as the SMTP reply says it. */
export class MailRefusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** How far the characters of a text too long are counted for the reply that says so. */
const TOO_LONG_COUNTED_UP_TO = 1_000;

/** What a mail lacks when it gives no SMS text, by where the account takes the text from. */
const MISSING: Record<MailTextSource, string> = { subject: 'no subject', body: 'no plain-text body', both: 'neither a subject nor a plain-text body' };

/** The parts of a mail its SMS text is taken from. */
export interface MailContent {
  subject: string | undefined;
  /** The plain-text body. */
  body: string | undefined;
}

export class MailSubmissions {
  constructor(private readonly parts: MailSubmissionParts) {}

  /** Stores an SMS of the mail's text to each of `phones`; answers their ids. A MailRefusal says why none was. */
  async submit(accountId: string, sender: string, phones: string[], content: MailContent): Promise<string[]> {
    const { messages, mail, db } = this.parts;
    const source = await mail.textSourceFor(accountId);
    const text = smsTextOf(source, content.subject, content.body);
    if (text.length === 0) throw new MailRefusal(550, `5.6.0 No text to send: the mail has ${MISSING[source]} (the account takes its SMS text from the mail's ${source === 'both' ? 'subject and body' : source}: GET /account/mail)`);
    // The limit POST /sms enforces on its message.
    if (exceedsCharacters(text, MESSAGE_MAX_CHARACTERS)) {
      // Counted no further than a reply needs: the whole of a 1 MB body would take seconds.
      const counted = countCharacters(text, TOO_LONG_COUNTED_UP_TO);
      const characters = counted > TOO_LONG_COUNTED_UP_TO ? `more than ${TOO_LONG_COUNTED_UP_TO}` : String(counted);
      throw new MailRefusal(554, `5.6.0 The SMS text is too long: ${characters} characters, at most ${MESSAGE_MAX_CHARACTERS} are sent as one SMS; shorten the mail (quoted lines and the signature after "-- " are left out already)`);
    }
    const prepared = [];
    for (const phone of phones) {
      prepared.push(await messages.prepare(accountId, { phone, message: text, wayIn: 'mail' }).catch((error: unknown) => {
        throw refusalOf(error, phone);
      }));
    }
    const ids: string[] = [];
    for (const sms of prepared) {
      const result = await createSms(
        this.parts,
        accountId,
        { key: undefined, operation: 'SMTP DATA', body: undefined },
        async () => [sms],
        ([created]) => ({ status: 201, body: created!.id }),
      );
      ids.push(result.body as string);
      if (sender) await mail.rememberSender(db, accountId, sms.sms.phone, sender);
    }
    return ids;
  }
}

function refusalOf(error: unknown, phone: string): unknown {
  if (!(error instanceof AppError)) return error;
  switch (error.code) {
    case 'message_too_long':
      return new MailRefusal(554, `5.6.0 The SMS text is too long: ${error.message}`);
    case 'invalid_phone':
      return new MailRefusal(550, `5.1.1 ${phone}: ${error.message}`);
    case 'recipient_opted_out':
      return new MailRefusal(550, `5.7.1 ${phone}: ${error.message}`);
    default:
      return new MailRefusal(550, `5.7.0 Not sent: ${error.message}`);
  }
}
