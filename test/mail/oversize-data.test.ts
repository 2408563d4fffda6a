// A mail past the 1 MiB limit is refused with 552 as soon as it passes the limit, and its
// connection closed: the gateway neither reads the rest nor parses any of it. Before, a client
// could make it read and parse 60 MB (for 16 s) to be told 552 at the end.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { useGateway } from '../support/use-gateway.ts';
import { MAIL_MAX_BYTES } from '../../src/api/mail/listener.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

const MAIL_BYTES = 60 * 1024 * 1024;
/** A line of 78 characters and its CRLF: a well-formed mail body, whatever its length. */
const LINE = 'x'.repeat(78) + '\r\n';
const CHUNK = LINE.repeat(800);

/** A mail of `total` bytes, made as it is read; `produced` says how much was read so far. */
function hugeMail(total: number): Readable & { produced: number } {
  const mail = Object.assign(
    new Readable({
      read() {
        if (mail.produced === 0) {
          mail.produced += 20;
          this.push('Subject: huge\r\n\r\n');
          return;
        }
        if (mail.produced >= total) return void this.push(null);
        mail.produced += CHUNK.length;
        this.push(CHUNK);
      },
    }),
    { produced: 0 },
  );
  return mail;
}

describe('email to SMS: a mail too large', function () {
  this.timeout(60_000);
  const fx = useGateway({ config: { smtp: smtpOn() } });

  describe('when a client sends 60 MB of DATA', () => {
    it('then it is answered 552 after about the limit, long before it has sent the rest', async () => {
      const mail = hugeMail(MAIL_BYTES);
      const refused = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail({ envelope: { from: 'alice@example.org', to: [`+491701234567@${DOMAIN}`] }, raw: mail }));
      const sentBeforeTheAnswer = mail.produced;
      mail.destroy();
      expect(refused.code).to.equal(552);
      expect(refused.response).to.match(/^552 5\.3\.4 Mail too large/);
      // The limit, and what the sockets' buffers on either side hold besides.
      expect(sentBeforeTheAnswer, `bytes the client had sent when the 552 came (limit ${MAIL_MAX_BYTES})`).to.be.above(MAIL_MAX_BYTES).and.below(MAIL_BYTES / 4);
      // The listener goes on taking mail.
      expect(await mailClient(fx.gateway, fx.tenant.key).verify()).to.equal(true);
    });
  });
});
