// Email to SMS tests: a relay SMTP server that collects what the gateway sends (its replies by
// email), and a nodemailer client on the gateway's SMTP listener.
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { Gateway } from '../../src/gateway.ts';
import { loadConfig, type SmtpConfig } from '../../src/config.ts';

export const DOMAIN = 'sms.example.com';

/** The SMTP listener of a test gateway: on a free port, for DOMAIN, plain SMTP, the other settings their defaults unless given. */
export function smtpOn(settings: Partial<SmtpConfig> = {}): SmtpConfig {
  return { ...loadConfig({}).smtp, port: 0, domain: DOMAIN, tls: undefined, ...settings };
}

export interface RelayedMail {
  from: string;
  to: string[];
  data: string;
}

/** A relay that takes any mail without login and keeps it, with its envelope. */
export class Relay {
  readonly mails: RelayedMail[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        this.mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((rcpt) => rcpt.address), data });
        this.waiters = this.waiters.filter((waiter) => (this.mails.length >= waiter.count ? (waiter.resolve(), false) : true));
        callback();
      });
    },
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(resolve));
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` mails arrived in all. */
  until(count: number, timeoutMs = 5_000): Promise<void> {
    if (this.mails.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`relay got ${this.mails.length} mails, waited for ${count}`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

/** A client on the gateway's SMTP listener, logged in with `key` (none: no AUTH), from a local address (127.0.0.x) of its own if given. */
export function mailClient(gateway: Gateway, key: string | undefined, from?: string) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: gateway.smtpPort,
    secure: false,
    ignoreTLS: true,
    ...(from === undefined ? {} : { localAddress: from }),
    ...(key === undefined ? {} : { auth: { user: 'anyone', pass: key } }),
  });
}

/** What the client was told when the gateway refused: the SMTP code and the reply text. */
export async function refusalOf(sending: Promise<unknown>): Promise<{ code: number; response: string }> {
  try {
    await sending;
  } catch (error) {
    const failure = error as { responseCode?: number; response?: string; message: string };
    return { code: failure.responseCode ?? 0, response: failure.response ?? failure.message };
  }
  throw new Error('the mail was accepted');
}
