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

/** An account's own choice of mail text; an account without one follows the gateway's SMTP_TEXT. */
export interface MailSettingsRow {
  account_id: string;
  text: MailTextSource;
  updated_at: Date;
}

/** The account's email-to-SMS settings as they apply. */
export interface MailSettings {
  /** What of its mail becomes the SMS text: its own choice, or else the gateway's SMTP_TEXT. */
  text: MailTextSource;
  /** Whether the account chose `text` (false: it follows SMTP_TEXT, and changes with it). */
  chosen: boolean;
  updated_at: Date | null;
}

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
