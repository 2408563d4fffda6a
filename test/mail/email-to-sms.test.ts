// Email to SMS and back, with a real SMTP client (nodemailer) on the gateway's SMTP listener: a
// mail with AUTH becomes an SMS at a real MQTT phone; the phone reports the number's reply, which
// arrives by email at a real relay SMTP server, addressed to the original sender, from
// <number>@<SMTP_DOMAIN>. And the refusals, each with the SMTP code and text the client sees.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { receive, receivingPhone } from '../opt-out/support.ts';
import { DOMAIN, mailClient, refusalOf, Relay, smtpOn } from './support.ts';

const NUMBER = '+491701234567';

describe('email to SMS: the SMTP listener', () => {
  const relay = new Relay();
  before(() => relay.start());
  after(() => relay.stop());

  const fx = useGateway({
    config: () => ({
      smtp: smtpOn(),
      inboundRules: { smtpUrl: relay.url, mailFrom: 'gateway@example.com', autoReplyWindowMs: 600_000, regexTimeoutMs: 50 },
    }),
  });

  const smsList = async () => (await fx.tenant.api.get('/sms?limit=10')).body.data as { phone: string; message: string }[];

  it('turns a mail into an SMS at the phone, and the reply into a mail to the sender', async () => {
    const phone = await receivingPhone(fx);
    await mailClient(fx.gateway, fx.tenant.key).sendMail({
      from: 'alice@example.org',
      to: `${NUMBER}@${DOMAIN}`,
      subject: 'ignored: the gateway takes the body',
      text: 'Dinner at 8?\n\n-- \nAlice Example\nExample Corp',
    });
    await phone.until(1);
    expect(phone.tasks[0]).to.include({ phone: NUMBER, message: 'Dinner at 8?' });
    await phone.sendAll();

    const before = relay.mails.length;
    await receive(phone, NUMBER, 'Yes, see you there');
    await relay.until(before + 1);
    const mail = relay.mails[before]!;
    expect(mail.to).to.deep.equal(['alice@example.org']);
    expect(mail.from).to.equal(`${NUMBER}@${DOMAIN}`);
    expect(mail.data).to.match(new RegExp(`^From: \\${NUMBER}@${DOMAIN.replace(/\./g, '\\.')}`, 'm'));
    expect(mail.data).to.match(/^To: alice@example\.org/m);
    expect(mail.data).to.contain('Yes, see you there');
  });

  it('takes the number without its +, and sends nothing back for a number nobody emailed', async () => {
    const phone = await receivingPhone(fx);
    await mailClient(fx.gateway, fx.tenant.key).sendMail({ from: 'bob@example.org', to: `491701234567@${DOMAIN}`, text: 'Plain digits' });
    await phone.until(1);
    expect(phone.tasks[0]).to.include({ phone: NUMBER, message: 'Plain digits' });

    // Another number's SMS is stored (the API lists it) and mailed to nobody.
    const before = relay.mails.length;
    await receive(phone, '+491709876543', 'who is this?');
    const incoming = (await fx.tenant.api.get('/incoming?limit=5')).body.data as { phone: string }[];
    expect(incoming.map((sms) => sms.phone)).to.include('+491709876543');
    // The reply of the emailed number arrives, and it is the only mail since.
    await receive(phone, NUMBER, 'it is me');
    await relay.until(before + 1);
    expect(relay.mails.slice(before).map((mail) => mail.to)).to.deep.equal([['bob@example.org']]);
  });

  it('refuses a mail without AUTH, and a wrong or revoked key (counted as failed API key logins)', async () => {
    const mail = { from: 'eve@example.org', to: `${NUMBER}@${DOMAIN}`, text: 'hi' };
    const anonymous = await refusalOf(mailClient(fx.gateway, undefined).sendMail(mail));
    expect(anonymous.code).to.equal(530);
    expect(anonymous.response).to.equal('530 5.7.0 Authentication required: AUTH with an API key holding sms:send');

    const wrong = await refusalOf(mailClient(fx.gateway, 'not-a-key').sendMail(mail));
    expect(wrong.code).to.equal(535);
    expect(wrong.response).to.contain('not a live API key');

    const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['sms:send']);
    await fx.gateway.services.apiKeys.revoke(row.id);
    const revoked = await refusalOf(mailClient(fx.gateway, key).sendMail(mail));
    expect(revoked.code).to.equal(535);

    const { key: reader } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['sms:read']);
    const lacking = await refusalOf(mailClient(fx.gateway, reader).sendMail(mail));
    expect(lacking.code).to.equal(535);
    expect(lacking.response).to.contain('lacks sms:send');

    const metrics = await fx.gateway.services.metrics.render();
    expect(metrics).to.match(/auth_failures_total\{[^}]*channel="api_key"[^}]*\} [3-9]/);
    expect(await smsList()).to.deep.equal([]);
  });

  it('refuses at RCPT a recipient that is not a number (550) and another domain (550 relay denied)', async () => {
    const client = mailClient(fx.gateway, fx.tenant.key);
    const bad = await refusalOf(client.sendMail({ from: 'alice@example.org', to: `nobody@${DOMAIN}`, text: 'hi' }));
    expect(bad.code).to.equal(550);
    expect(bad.response).to.contain('not a phone number');

    const short = await refusalOf(client.sendMail({ from: 'alice@example.org', to: `+12@${DOMAIN}`, text: 'hi' }));
    expect(short.code).to.equal(550);

    const elsewhere = await refusalOf(client.sendMail({ from: 'alice@example.org', to: `${NUMBER}@example.net`, text: 'hi' }));
    expect(elsewhere.code).to.equal(550);
    expect(elsewhere.response).to.match(/relay denied/i);
    expect(await smsList()).to.deep.equal([]);
  });

  it('refuses at DATA a text longer than one SMS, saying why, and sends nothing', async () => {
    const phone = await receivingPhone(fx);
    const long = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail({ from: 'alice@example.org', to: `${NUMBER}@${DOMAIN}`, text: 'x'.repeat(171) }));
    expect(long.code).to.equal(554);
    expect(long.response).to.contain('too long: 171 characters, at most 170');
    expect(await smsList()).to.deep.equal([]);
    expect(phone.total).to.equal(0);
  });
});
