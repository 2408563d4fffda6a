// Email to SMS with SMTP_TLS_CERT and SMTP_TLS_KEY: the listener offers STARTTLS, a client that
// upgrades logs in and its mail becomes an SMS; AUTH in clear is refused, so a key never crosses
// the network unencrypted.
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { useGateway } from '../support/use-gateway.ts';
import { receivingPhone } from '../opt-out/support.ts';
import { certificateDirectory, makeCertificate, type TestCertificate } from '../tls/tls-support.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

describe('email to SMS: STARTTLS', () => {
  const certificates = certificateDirectory();
  let certificate: TestCertificate;
  const fx = useGateway({
    config: () => {
      certificate = makeCertificate(certificates.directory, 'smtp');
      return { smtp: smtpOn({ tls: { certFile: certificate.certFile, keyFile: certificate.keyFile }, text: 'subject' }) };
    },
  });
  after(() => certificates.remove());

  it('takes a mail after STARTTLS (the subject as text, as set), and refuses AUTH in clear', async () => {
    const phone = await receivingPhone(fx);
    const secure = nodemailer.createTransport({
      host: '127.0.0.1',
      port: fx.gateway.smtpPort,
      secure: false,
      requireTLS: true,
      tls: { ca: certificate.pem, servername: 'localhost' },
      auth: { user: 'anyone', pass: fx.tenant.key },
    });
    await secure.sendMail({ from: 'alice@example.org', to: `+491701234567@${DOMAIN}`, subject: 'Over TLS', text: 'the body is not sent' });
    await phone.until(1);
    expect(phone.tasks[0]).to.include({ phone: '+491701234567', message: 'Over TLS' });

    const clear = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail({ from: 'alice@example.org', to: `+491701234567@${DOMAIN}`, subject: 'in clear' }));
    expect(clear.code).to.equal(538);
  });
});
