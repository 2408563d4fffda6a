// Email to SMS and back: what the mail module keeps and what it hands to the relay.

/** Which email address last sent an SMS to a number of an account (through the SMTP listener). */
export interface MailSenderRow {
  account_id: string;
  phone: string;
  sender: string;
  updated_at: Date;
}

/** Which part of an email becomes the SMS text: the subject, the body, or both (subject, a new line, body). */
export type MailTextSource = 'subject' | 'body' | 'both';

export const MAIL_TEXT_SOURCES: readonly MailTextSource[] = ['subject', 'body', 'both'];

/** One email out through the relay (SMTP_URL). */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** The SMTP relay replies go out through; given by composition. */
export interface MailRelay {
  send(mail: OutgoingMail): Promise<void>;
}
