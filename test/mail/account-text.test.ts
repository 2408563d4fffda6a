// What of a mail becomes the SMS text is each account's choice (GET/PATCH /account/mail), the
// gateway's SMTP_TEXT for an account that has not chosen. Real nodemailer clients log in with each
// account's key; the SMS reach each account's real MQTT phone with the text that account chose.
// Bad values are 400; a key changes only its own account's choice.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { receivingPhone } from '../opt-out/support.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import type { Tenant } from '../support/tenant.ts';
import { DOMAIN, mailClient, refusalOf, smtpOn } from './support.ts';
import { mailSettingsRowsOf } from '../support/test-data.ts';

const NUMBER = '+491701234567';
const MAIL = { from: 'alice@example.org', to: `${NUMBER}@${DOMAIN}`, subject: 'Server down', text: 'db-1 stopped answering at 03:12\n\n-- \nmonitoring' };

describe('email to SMS: the SMS text is the account\'s choice', () => {
  // The gateway's default is "both", not the built-in "body": an account that has not chosen shows it follows SMTP_TEXT.
  const fx = useGateway({ config: { smtp: smtpOn({ text: 'both' }) } });

  /** Mails MAIL with the tenant's key; answers the text of the SMS its phone was given. */
  async function mailThrough(tenant: Tenant, phone: TaskPhone, count: number, mail: Record<string, string> = MAIL): Promise<string> {
    await mailClient(fx.gateway, tenant.key).sendMail(mail);
    await phone.until(count);
    const task = phone.tasks[phone.tasks.length - 1]!;
    await phone.sendAll();
    expect(task.phone).to.equal(NUMBER);
    return task.message;
  }

  it('sends one account the subject and another (that has not chosen) what SMTP_TEXT says, each by its own key', async () => {
    const other = await fx.newTenant();
    const [ours, theirs] = [await receivingPhone(fx), await receivingPhone(fx, other)];

    const untouched = await fx.tenant.api.get('/account/mail');
    expect(untouched.status).to.equal(200);
    expect(untouched.body).to.deep.equal({ text: 'both', chosen: false, updated_at: null });

    const chosen = await fx.tenant.api.patch('/account/mail', { text: 'subject' });
    expect(chosen.status, JSON.stringify(chosen.body)).to.equal(200);
    expect(chosen.body).to.include({ text: 'subject', chosen: true });
    expect(Date.parse(chosen.body.updated_at)).to.be.closeTo(Date.now(), 60_000);
    expect((await fx.tenant.api.get('/account/mail')).body).to.deep.equal(chosen.body);

    expect(await mailThrough(fx.tenant, ours, 1)).to.equal('Server down');
    expect(await mailThrough(other, theirs, 1)).to.equal('Server down\ndb-1 stopped answering at 03:12');
    expect((await other.api.get('/account/mail')).body).to.deep.equal({ text: 'both', chosen: false, updated_at: null });

    // The other account chooses the body; ours keeps the subject. Then ours goes back to SMTP_TEXT.
    expect((await other.api.patch('/account/mail', { text: 'body' })).body).to.include({ text: 'body', chosen: true });
    expect(await mailThrough(other, theirs, 2)).to.equal('db-1 stopped answering at 03:12');
    expect(await mailThrough(fx.tenant, ours, 2)).to.equal('Server down');

    const reset = await fx.tenant.api.patch('/account/mail', { text: null });
    expect(reset.body).to.deep.equal({ text: 'both', chosen: false, updated_at: null });
    expect(await mailThrough(fx.tenant, ours, 3)).to.equal('Server down\ndb-1 stopped answering at 03:12');
    expect((await other.api.get('/account/mail')).body).to.include({ text: 'body', chosen: true });
  });

  it('refuses a mail with nothing where the account takes its text from, saying where that is', async () => {
    await receivingPhone(fx);
    await fx.tenant.api.patch('/account/mail', { text: 'subject' });
    const refused = await refusalOf(mailClient(fx.gateway, fx.tenant.key).sendMail({ from: 'alice@example.org', to: `${NUMBER}@${DOMAIN}`, text: 'a body, no subject' }));
    expect(refused.code).to.equal(550);
    expect(refused.response).to.contain("the mail has no subject (the account takes its SMS text from the mail's subject");
    expect((await fx.tenant.api.get('/sms?limit=5')).body.data).to.deep.equal([]);
  });

  it('refuses values that are not subject, body, both or null (400), and changes nothing', async () => {
    await fx.tenant.api.patch('/account/mail', { text: 'subject' });
    for (const body of [{ text: 'html' }, { text: 'Subject' }, { text: 1 }, { text: ['body'] }, {}, { text: 'body', more: true }]) {
      const reply = await fx.tenant.api.patch('/account/mail', body);
      expect(reply.status, JSON.stringify(body)).to.equal(400);
      expect(reply.body.error.code).to.equal('validation_failed');
    }
    const notJson = await fx.tenant.api.request('PATCH', '/account/mail', 'text=body', { 'content-type': 'text/plain' });
    expect(notJson.status).to.be.within(400, 415);
    expect((await fx.tenant.api.get('/account/mail')).body).to.include({ text: 'subject', chosen: true });
  });

  it("is each account's own: another account's key reads and changes only its own; sms:read may read, not change", async () => {
    const other = await fx.newTenant();
    await other.api.patch('/account/mail', { text: 'body' });
    expect((await fx.tenant.api.patch('/account/mail', { text: 'subject' })).status).to.equal(200);
    expect((await other.api.get('/account/mail')).body).to.include({ text: 'body', chosen: true });
    expect((await fx.tenant.api.get('/account/mail')).body).to.include({ text: 'subject', chosen: true });

    const reader = await fx.keyWith(['sms:read'], other);
    expect((await reader.get('/account/mail')).body).to.include({ text: 'body' });
    const denied = await reader.patch('/account/mail', { text: 'both' });
    expect(denied.status).to.equal(403);
    const sender = await fx.keyWith(['sms:send'], other);
    expect((await sender.get('/account/mail')).status).to.equal(403);
    expect((await sender.patch('/account/mail', { text: 'both' })).body).to.include({ text: 'both' });
    expect((await fx.tenant.api.get('/account/mail')).body).to.include({ text: 'subject' });
  });

  it('forgets the choice with the account', async () => {
    const other = await fx.newTenant();
    await other.api.patch('/account/mail', { text: 'subject' });
    expect(await mailSettingsRowsOf(fx, other.accountId)).to.deep.equal([{ text: 'subject' }]);
    await fx.gateway.services.accounts.remove(other.accountId);
    expect(await mailSettingsRowsOf(fx, other.accountId)).to.deep.equal([]);
  });
});
