// SMTP_MAX_CLIENTS bounds the SMTP listener's open connections: past it a new connection is
// greeted 421 (try again in a moment) and closed, while those already open go on.
import { expect } from 'chai';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { useGateway } from '../support/use-gateway.ts';
import { smtpOn } from './support.ts';

const MAX_CLIENTS = 2;

describe('email to SMS: SMTP_MAX_CLIENTS', () => {
  const fx = useGateway({ config: { smtp: smtpOn({ maxClients: MAX_CLIENTS }) } });
  const open: SMTPConnection[] = [];
  afterEach(() => open.splice(0).forEach((connection) => connection.close()));

  /** A nodemailer SMTP connection: resolves once greeted 220, rejects with the greeting's code otherwise. */
  function connect(): Promise<SMTPConnection> {
    const connection = new SMTPConnection({ host: '127.0.0.1', port: fx.gateway.smtpPort, secure: false, ignoreTLS: true });
    open.push(connection);
    return new Promise((resolve, reject) => {
      connection.once('error', reject);
      connection.connect(() => resolve(connection));
    });
  }

  describe('when SMTP_MAX_CLIENTS connections are open', () => {
    it('then the next is greeted 421 and closed, and the open ones still log in', async () => {
      const held: SMTPConnection[] = [];
      for (let i = 0; i < MAX_CLIENTS; i++) held.push(await connect());
      const refused = await connect().then(
        () => undefined,
        (error: { responseCode?: number; response?: string }) => error,
      );
      expect(refused, 'the connection past the bound').to.include({ responseCode: 421 });
      expect(refused?.response).to.contain('Too many connected clients');
      await new Promise<void>((resolve, reject) => held[0]!.login({ user: 'anyone', pass: fx.tenant.key }, (error?: Error | null) => (error ? reject(error) : resolve())));
    });
  });
});
