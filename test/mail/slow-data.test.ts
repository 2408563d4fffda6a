// A client that trickles its DATA (a few bytes now and then, each of which restarts the idle
// timeout) is cut off once SMTP_DATA_TIMEOUT has passed since DATA began: 421 4.4.2 and the
// connection closed. Otherwise a few such clients hold connections open for as long as they like.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { useGateway } from '../support/use-gateway.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

const DATA_TIMEOUT_MS = 500;

/** A mail that never ends: its header, then a byte every 50 ms until destroyed. */
function tricklingMail(): Readable {
  let timer: NodeJS.Timeout | undefined;
  let first = true;
  return new Readable({
    read() {
      if (first) {
        first = false;
        this.push('Subject: slow\r\n\r\n');
        return;
      }
      timer = setTimeout(() => this.push('x'), 50);
    },
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
}

describe('email to SMS: a slow DATA', () => {
  const fx = useGateway({ config: { smtp: smtpOn({ dataTimeoutMs: DATA_TIMEOUT_MS }) } });

  describe('when a client trickles its DATA for longer than SMTP_DATA_TIMEOUT', () => {
    it('then it is answered 421 and cut off within the bound', async function () {
      this.timeout(10_000);
      const mail = tricklingMail();
      const started = Date.now();
      const client = mailClient(fx.gateway, fx.tenant.key);
      const sending = refusalOf(client.sendMail({ envelope: { from: 'alice@example.org', to: [`+491701234567@${DOMAIN}`] }, raw: mail }));
      const outcome = await Promise.race([sending, new Promise<'still sending'>((resolve) => setTimeout(() => resolve('still sending'), 5_000).unref())]);
      mail.destroy();
      client.close();
      expect(outcome, 'what the client was told within 5 s').to.not.equal('still sending');
      const elapsed = Date.now() - started;
      expect(outcome).to.include({ code: 421 });
      expect((outcome as { response: string }).response).to.match(/^421 4\.4\.2 /);
      expect(elapsed).to.be.below(DATA_TIMEOUT_MS + 2_000);
    });
  });
});
