// A mail whose text is far past one SMS is refused saying so without counting all of it: the
// reply names the count up to 1,000 characters, and "more than 1000" past that, so that a 1 MB
// body costs no more to refuse than a short one.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';

describe('email to SMS: a text far too long', () => {
  const fx = useGateway({ config: () => ({ smtp: smtpOn() }) });

  it('when the text has more than 1,000 characters, then 554 says "more than 1000" and nothing is sent', async () => {
    const client = mailClient(fx.gateway, fx.tenant.key);
    const huge = await refusalOf(client.sendMail({ from: 'alice@example.org', to: `+491701234567@${DOMAIN}`, text: 'x'.repeat(200_000) }));
    expect(huge.code).to.equal(554);
    expect(huge.response).to.contain('too long: more than 1000 characters, at most 170');
    const near = await refusalOf(client.sendMail({ from: 'alice@example.org', to: `+491701234567@${DOMAIN}`, text: 'x'.repeat(1_000) }));
    expect(near.response).to.contain('too long: 1000 characters, at most 170');
    expect((await fx.tenant.api.get('/sms')).body.data).to.deep.equal([]);
  });
});
