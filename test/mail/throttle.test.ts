// Failed SMTP logins count in the throttle API keys share with the HTTP API: past the hard limit
// the address is refused unchecked, over SMTP (454, even with a good key) and over HTTP alike.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { DOMAIN, mailClient, refusalOf } from './support.ts';

describe('email to SMS: failed logins', () => {
  const fx = useGateway({
    config: {
      smtp: { port: 0, domain: DOMAIN, tls: undefined, text: 'body' },
      authThrottle: { failureLimit: 1, hardLimit: 2, windowMs: 60_000, mqttRefusalDelayMs: 0 },
    },
  });

  it('blocks the address after too many wrong keys, over SMTP and HTTP', async () => {
    const mail = { from: 'eve@example.org', to: `+491701234567@${DOMAIN}`, text: 'hi' };
    expect((await refusalOf(mailClient(fx.gateway, 'guess-1').sendMail(mail))).code).to.equal(535);
    expect((await refusalOf(mailClient(fx.gateway, 'guess-2').sendMail(mail))).code).to.equal(535);

    const blocked = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail(mail));
    expect(blocked.code).to.equal(454);
    expect(blocked.response).to.contain('Too many failed logins');
    expect((await fx.tenant.api.get('/sms')).status).to.equal(429);
  });
});
