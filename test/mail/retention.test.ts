// Who emailed a number is kept no longer than the account keeps message text: the retention
// sweep (on the gateway's clock) forgets a sender quiet past it, and the number's SMS then goes
// back by email to nobody.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { receivingPhone } from '../opt-out/support.ts';
import { DOMAIN, mailClient, smtpOn } from './support.ts';
import { mailSendersOf } from '../support/test-data.ts';

const DAY = 24 * 3600 * 1000;

describe('email to SMS: retention', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: { smtp: smtpOn() } });

  const senders = () => mailSendersOf(fx, fx.tenant.accountId);

  it('forgets a sender quiet longer than the account keeps text', async () => {
    const phone = await receivingPhone(fx);
    await mailClient(fx.gateway, fx.tenant.key).sendMail({ from: 'Alice@Example.org', to: `+491701234567@${DOMAIN}`, text: 'hello' });
    await phone.until(1);
    expect(await senders()).to.deep.equal([{ phone: '+491701234567', sender: 'alice@example.org' }]);
    expect((await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 7 })).status).to.equal(200);

    clock.advance(6 * DAY);
    await fx.gateway.services.retentionSweep.runOnce();
    expect(await senders()).to.have.length(1);

    clock.advance(2 * DAY);
    await fx.gateway.services.retentionSweep.runOnce();
    expect(await senders()).to.deep.equal([]);
  });

  it('reads the senders a page at a time by number, for the account export, only the account\'s own', async () => {
    const phone = await receivingPhone(fx);
    const numbers = ['+491701234569', '+491701234567', '+491701234568'];
    for (const [index, number] of numbers.entries()) {
      await mailClient(fx.gateway, fx.tenant.key).sendMail({ from: `writer${index}@example.org`, to: `${number}@${DOMAIN}`, text: 'hello' });
    }
    await phone.until(3);
    const other = await fx.newTenant();
    await receivingPhone(fx, other);
    await mailClient(fx.gateway, other.key).sendMail({ from: 'someone@example.org', to: `+491701234560@${DOMAIN}`, text: 'hello' });

    const { mail } = fx.gateway.services;
    const first = await mail.exportPage(fx.tenant.accountId, undefined, 2);
    expect(first.map((row) => [row.phone, row.sender])).to.deep.equal([['+491701234567', 'writer1@example.org'], ['+491701234568', 'writer2@example.org']]);
    const second = await mail.exportPage(fx.tenant.accountId, first[1]!.phone, 2);
    expect(second.map((row) => [row.phone, row.sender])).to.deep.equal([['+491701234569', 'writer0@example.org']]);
    expect(await mail.exportPage(fx.tenant.accountId, second[0]!.phone, 2)).to.deep.equal([]);
  });
});
