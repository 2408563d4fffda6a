// A wrong API key from an address past AUTH_FAILURE_LIMIT is answered 454 (4.7.0, try again
// later) instead of 535, as HTTP answers 429 instead of 401: a mail server that retries a 535 at
// once is told to back off. A valid key from that address still logs in (the address is
// throttled, not blocked: a colleague's key behind the same NAT keeps working).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

describe('email to SMS: a throttled address', () => {
  const fx = useGateway({
    config: {
      smtp: smtpOn(),
      authThrottle: { failureLimit: 2, hardLimit: 10, windowMs: 60_000, mqttRefusalDelayMs: 0 },
    },
  });

  describe('when an address has sent AUTH_FAILURE_LIMIT wrong keys', () => {
    it('then its next wrong key is answered 454 "try again later", and a valid key from it still logs in', async () => {
      const from = '127.0.0.21';
      const mail = { from: 'eve@example.org', to: `+491701234567@${DOMAIN}`, text: 'hi' };
      expect((await refusalOf(mailClient(fx.gateway, 'guess-1', from).sendMail(mail))).code).to.equal(535);

      const throttled = await refusalOf(mailClient(fx.gateway, 'guess-2', from).sendMail(mail));
      expect(throttled.code).to.equal(454);
      expect(throttled.response).to.match(/^454 4\.7\.0 Too many failed logins; try again in \d+ seconds/);
      expect((await refusalOf(mailClient(fx.gateway, 'guess-3', from).sendMail(mail))).code).to.equal(454);

      expect(await mailClient(fx.gateway, fx.tenant.key, from).verify()).to.equal(true);
      // Another address is not throttled: its wrong key is a plain 535.
      expect((await refusalOf(mailClient(fx.gateway, 'guess-4', '127.0.0.22').sendMail(mail))).code).to.equal(535);
    });
  });
});
