// Failed SMTP logins count in the throttle API keys share with the HTTP API: past the limit a
// wrong key is answered 454 (try again later) instead of 535, and past the hard limit the address
// is refused unchecked, over SMTP (454, even with a good key) and over HTTP alike.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

describe('email to SMS: failed logins', () => {
  const fx = useGateway({
    config: {
      smtp: smtpOn(),
      authThrottle: { failureLimit: 2, hardLimit: 3, windowMs: 60_000, mqttRefusalDelayMs: 0 },
    },
  });

  it('blocks the address after too many wrong keys, over SMTP and HTTP', async () => {
    const mail = { from: 'eve@example.org', to: `+491701234567@${DOMAIN}`, text: 'hi' };
    expect((await refusalOf(mailClient(fx.gateway, 'guess-1').sendMail(mail))).code).to.equal(535);
    expect((await refusalOf(mailClient(fx.gateway, 'guess-2').sendMail(mail))).code).to.equal(454);
    expect((await refusalOf(mailClient(fx.gateway, 'guess-3').sendMail(mail))).code).to.equal(454);

    const blocked = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail(mail));
    expect(blocked.code).to.equal(454);
    expect(blocked.response).to.contain('Too many failed logins');
    expect((await fx.tenant.api.get('/sms')).status).to.equal(429);
  });
});
