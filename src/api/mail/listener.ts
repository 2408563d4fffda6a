// The SMTP listener (SMTP_PORT): mail to <number>@<SMTP_DOMAIN> from a client logged in with an
// API key (AUTH PLAIN or LOGIN; the user name is anything, the password the key) becomes an SMS
// to each number. STARTTLS with SMTP_TLS_CERT and SMTP_TLS_KEY. Refusals are SMTP replies that
// say why, so that the sending server's bounce tells its user: 535 for a bad key, 550 for a
// recipient that is not a number of this domain, 554 at DATA for a text longer than one SMS.
// Logs carry accounts, counts and masked numbers, never the text or a whole number.
//
// What one client can hold is bounded: SMTP_MAX_CLIENTS connections in all (past it 421), of
// which a quarter may be waiting to log in (past that a newcomer pushes out the oldest waiting
// connection of the address holding the most, src/common/waiting-room.ts), an
// idle connection closed after SMTP_IDLE_TIMEOUT, a mail's DATA cut off with 421 when it takes
// longer than SMTP_DATA_TIMEOUT however it trickles, and with 552 as soon as it passes 1 MiB
// (message-reader.ts): neither waits for the client to finish sending.
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { listen } from '../../common/listen.ts';
import { maskPhone } from '../../common/logger.ts';
import { keyPrefix } from '../../modules/api-keys/key-format.ts';
import type { MailListenerOptions, MailPorts, MailUser } from './ports.ts';
import { readRecipient } from './recipient.ts';
import { MailRefusal } from './submission.ts';
import { readMessage, type MessageReading } from './message-reader.ts';
import { WaitingRoom, type WaitingPlace } from '../../common/waiting-room.ts';
import { waitingPlaces } from '../../common/file-descriptors.ts';
import { clientAddressKey } from '../../common/client-address.ts';

/** A mail larger than this is refused at DATA: an SMS is short, attachments are not sent. */
export const MAIL_MAX_BYTES = 1024 * 1024;
/** Recipients of one mail: a mail to more is a bulk send, which has its own API. */
export const MAIL_MAX_RECIPIENTS = 50;

/** The answer to MAIL FROM before AUTH: what to log in with, not the SMTP library's bare words. */
const AUTH_REQUIRED = '5.7.0 Authentication required: AUTH with an API key holding sms:send';

type Done = (error?: Error | null) => void;

const REFUSED_HELP = 'SMTP connections closed at once (or, not logged in, pushed out by a newcomer), by reason';

export class MailListener {
  /**
   * Connections not logged in yet (src/common/waiting-room.ts): a quarter of SMTP_MAX_CLIENTS, so
   * that connections that never log in cannot hold every place; by client address and port.
   */
  private readonly waitingRoom: WaitingRoom;
  private readonly waiting = new Map<string, WaitingPlace>();

  private constructor(
    private readonly server: SMTPServer,
    private readonly ports: MailPorts,
    maxClients: number,
  ) {
    this.waitingRoom = new WaitingRoom(waitingPlaces(maxClients));
  }

  static async start(ports: MailPorts, options: MailListenerOptions): Promise<MailListener> {
    let listener: MailListener | undefined;
    const server = new SMTPServer({
      name: options.domain,
      banner: 'sms-gateway: mail to <number>@' + options.domain + ' becomes an SMS',
      logger: false,
      size: MAIL_MAX_BYTES,
      maxClients: options.maxClients,
      socketTimeout: options.idleTimeoutMs,
      authMethods: ['PLAIN', 'LOGIN'],
      // Without a certificate there is no STARTTLS, and AUTH is taken in clear (a local network, a
      // proxy that terminates TLS); with one, clients are offered STARTTLS before AUTH.
      allowInsecureAuth: !options.tls,
      ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
      onAuth: (auth, session, callback) => void listener!.authenticate(auth, session, callback),
      // The server refuses MAIL FROM before AUTH itself, before onMailFrom is asked: in these words.
      authRequiredMessage: AUTH_REQUIRED,
      onMailFrom: (_address, session, callback) => callback(session.user ? null : refusal(530, AUTH_REQUIRED)),
      onRcptTo: (address, session, callback) => listener!.recipient(address.address, session, callback, options.domain),
      onData: (stream, session, callback) => void listener!.data(stream, session, callback, options),
    });
    listener = new MailListener(server, ports, options.maxClients);
    server.server.on('connection', (socket: Socket) => listener!.arrived(socket));
    server.on('error', (error) => ports.logger.warn({ err: error }, 'SMTP connection error'));
    await listen(server.server, { port: options.port, host: options.host }, 'SMTP_PORT');
    return listener;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A new connection takes a place in the waiting room until it logs in, or is closed at once. */
  private arrived(socket: Socket): void {
    const key = `${socket.remoteAddress}|${socket.remotePort}`;
    const arrival = this.waitingRoom.enter(clientAddressKey(socket.remoteAddress), () => socket.destroy());
    if ('refused' in arrival) {
      this.ports.metrics.count('smtp_connections_refused_total', REFUSED_HELP, { reason: 'waiting_room_full' });
      return void socket.destroy();
    }
    if (arrival.displaced) this.ports.metrics.count('smtp_connections_refused_total', REFUSED_HELP, { reason: 'pushed_out_before_login' });
    this.waiting.set(key, arrival.place);
    socket.once('close', () => {
      arrival.place.leave();
      this.waiting.delete(key);
    });
  }

  private async authenticate(auth: SMTPServerAuthentication, session: SMTPServerSession, callback: (error: Error | null | undefined, response?: { user: MailUser }) => void): Promise<void> {
    const key = auth.password ?? '';
    const attempt = { channel: 'api_key' as const, address: session.remoteAddress, credential: keyPrefix(key) || undefined };
    const { authThrottle, metrics, logger } = this.ports;
    try {
      if (authThrottle.refusedFor(attempt) > 0) {
        metrics.count('smtp_auth_total', 'SMTP logins, by outcome', { outcome: 'throttled' });
        return callback(refusal(454, '4.7.0 Too many failed logins from this address; try again later'));
      }
      const result = await this.ports.authenticate(key);
      if ('refused' in result) {
        const wait = authThrottle.failed(attempt);
        metrics.count('smtp_auth_total', 'SMTP logins, by outcome', { outcome: 'refused' });
        logger.info({ address: session.remoteAddress, keyPrefix: attempt.credential }, 'SMTP login refused');
        // Past the throttle's limit a wrong key is told to come back later (as HTTP answers 429,
        // not 401): a client that retries on 535 at once is slowed down, not encouraged.
        if (wait > 0) return callback(refusal(454, `4.7.0 Too many failed logins; try again in ${Math.ceil(wait / 1000)} seconds`));
        return callback(refusal(535, `5.7.8 Authentication failed: ${result.refused}`));
      }
      metrics.count('smtp_auth_total', 'SMTP logins, by outcome', { outcome: 'accepted' });
      this.waiting.get(`${session.remoteAddress}|${session.remotePort}`)?.leave();
      callback(null, { user: result.user });
    } catch (error) {
      logger.error({ err: error }, 'SMTP login not checked');
      callback(refusal(454, '4.7.0 Temporary failure checking the key; try again later'));
    }
  }

  private recipient(address: string, session: SMTPServerSession, callback: Done, domain: string): void {
    if (!session.user) return callback(refusal(530, AUTH_REQUIRED));
    if (session.envelope.rcptTo.length >= MAIL_MAX_RECIPIENTS) return callback(refusal(452, `4.5.3 Too many recipients: at most ${MAIL_MAX_RECIPIENTS} a mail`));
    const reading = readRecipient(address, domain);
    if ('refusal' in reading) {
      this.ports.metrics.count('smtp_recipients_refused_total', 'SMTP recipients refused at RCPT');
      return callback(refusal(reading.refusal.code, reading.refusal.text));
    }
    callback();
  }

  private async data(stream: Readable, session: SMTPServerSession, callback: Done, options: MailListenerOptions): Promise<void> {
    const { logger, metrics } = this.ports;
    const user = session.user as unknown as MailUser;
    try {
      const reading = await readMessage(stream, { maxBytes: MAIL_MAX_BYTES, timeoutMs: options.dataTimeoutMs });
      // Answered here and the connection closed: the onData callback is left uncalled, since
      // smtp-server would only answer once the client has sent the rest.
      if ('cut' in reading) return this.cutOff(session, user, reading, options);
      const parsed = await simpleParser(reading.message, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
      const phones = [...new Set(session.envelope.rcptTo.map((rcpt) => readRecipient(rcpt.address, options.domain)).flatMap((reading) => ('phone' in reading ? [reading.phone] : [])))];
      const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const ids = await this.ports.submissions.submit(user.accountId, sender, phones, { subject: parsed.subject, body: parsed.text });
      metrics.count('smtp_mails_total', 'mails taken over SMTP, by outcome', { outcome: 'sent' });
      logger.info({ accountId: user.accountId, recipients: phones.map(maskPhone), smsIds: ids }, 'mail turned into SMS');
      callback();
    } catch (error) {
      stream.resume();
      if (error instanceof MailRefusal) {
        metrics.count('smtp_mails_total', 'mails taken over SMTP, by outcome', { outcome: 'refused' });
        logger.info({ accountId: user.accountId, code: error.responseCode }, 'mail refused');
        return callback(refusal(error.responseCode, error.message));
      }
      logger.error({ err: error, accountId: user.accountId }, 'mail not turned into SMS');
      callback(refusal(451, '4.3.0 Temporary failure; try again later'));
    }
  }

  /**
   * A mail cut off mid-DATA is answered at once and its connection closed (SMTP has no way to
   * refuse a mail and go on while the client is still sending it): 552, a permanent refusal, for a
   * mail too large; 421, come back later, for one too slow.
   */
  private cutOff(session: SMTPServerSession, user: MailUser, reading: Extract<MessageReading, { cut: string }>, options: MailListenerOptions): void {
    this.ports.metrics.count('smtp_mails_total', 'mails taken over SMTP, by outcome', { outcome: reading.cut });
    this.ports.logger.info({ accountId: user.accountId, address: session.remoteAddress, cut: reading.cut, bytesRead: reading.bytesRead }, 'mail cut off mid-DATA');
    const connection = [...this.server.connections].find((open) => open.session === session);
    if (!connection || reading.cut === 'gone') return;
    if (reading.cut === 'too_large') {
      connection.send(552, `5.3.4 Mail too large: at most ${MAIL_MAX_BYTES} bytes; closing the connection`);
      connection.close();
    } else {
      // 421 closes the connection.
      connection.send(421, `4.4.2 The mail took longer than ${options.dataTimeoutMs / 1000} seconds to send; closing the connection`);
    }
  }
}

function refusal(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}
