// Forwarding by email: one SMTP server for the gateway (SMTP_URL), the From address MAIL_FROM.
import nodemailer from 'nodemailer';

export interface Mail {
  /** Absent: MAIL_FROM. Email to SMS replies come from <number>@<SMTP_DOMAIN>. */
  from?: string;
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** A mailer on the SMTP server of `url`; without one, every send fails with a reason an operator can act on. */
export function smtpMailer(url: string | undefined, from: string): Mailer {
  if (!url) {
    return {
      send: async () => {
        // The same mailer sends rule forwards, email-to-SMS replies and SIM health notices.
        throw new Error('SMTP_URL is not set: the gateway sends no email');
      },
    };
  }
  // A connection per message: forwards are rare, and nothing stays open when the gateway stops.
  const transport = nodemailer.createTransport(url);
  return {
    send: async (mail) => {
      await transport.sendMail({ ...mail, from: mail.from ?? from });
    },
  };
}
