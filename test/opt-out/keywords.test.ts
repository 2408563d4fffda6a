// Opt-out keywords received by the account's phones: STOP (in several languages and casings, and
// the account's own words) lists the sender, START takes it off, HELP answers the help text; the
// answers go out through the phone and SIM that received the keyword; a listed number is refused
// by POST /sms unless the key holds sms:send_transactional; the account can turn it all off.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { ordinaryClients, receive, receivingPhone, suppressed } from './support.ts';

const SENDER = '+79161234567';

describe('opt-out: keywords received by the account\'s phones', () => {
  const fx = useGateway();

  it('lists the sender for STOP in several languages and casings, and not for a sentence containing stop', async () => {
    const phone = await receivingPhone(fx);
    const words = ['STOP', ' stop ', 'Stop', 'СТОП', 'стоп', 'Arrêt', 'ARRET', 'unsubscribe', 'StopAll', 'quit'];
    const senders = words.map((_, index) => `+7916123450${index}`);
    for (const [index, word] of words.entries()) await receive(phone, senders[index]!, word);
    await receive(phone, '+79161239999', 'please stop sending me this');
    await receive(phone, '+79161239998', 'STOP now');
    expect(await suppressed(fx.tenant)).to.deep.equal([...senders].sort());
    const listed = (await fx.tenant.api.get('/suppressions?limit=100')).body.data;
    expect(listed.find((row: { phone: string }) => row.phone === senders[3])).to.deep.include({ source: 'keyword', keyword: 'СТОП' });
  });

  it('refuses POST /sms to a number that sent STOP with 422 recipient_opted_out, and takes it from a transactional key', async () => {
    const phone = await receivingPhone(fx);
    const { api } = await ordinaryClients(fx);
    expect((await api.post('/sms', { phone: SENDER, message: 'before' })).status).to.equal(201);
    await receive(phone, SENDER, 'STOP');
    const refused = await api.post('/sms', { phone: SENDER, message: 'after' });
    expectError(refused, 422, 'recipient_opted_out');
    // fx.tenant's key holds every permission, sms:send_transactional included.
    expect((await fx.tenant.api.post('/sms', { phone: SENDER, message: 'your code is 1234' })).status).to.equal(201);
  });

  it('takes the sender off the list for START or UNSTOP after STOP, and sends to it again', async () => {
    const phone = await receivingPhone(fx);
    const { api } = await ordinaryClients(fx);
    await receive(phone, SENDER, 'stop');
    await receive(phone, '+79161234568', 'STOP');
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER, '+79161234568']);
    await receive(phone, SENDER, 'Start');
    await receive(phone, '+79161234568', 'unstop');
    expect(await suppressed(fx.tenant)).to.deep.equal([]);
    expect((await api.post('/sms', { phone: SENDER, message: 'welcome back' })).status).to.equal(201);
  });

  it('answers HELP and confirms STOP and START through the phone and SIM that received them', async () => {
    const phone = await receivingPhone(fx);
    const other = await receivingPhone(fx);
    const settings = await fx.tenant.api.patch('/account/opt-out', { help_text: 'Acme alerts. Reply STOP to end.', stop_reply: 'You will get no more messages.', start_reply: 'Welcome back.' });
    expect(settings.status, JSON.stringify(settings.body)).to.equal(200);
    await receive(phone, SENDER, 'HELP', 1);
    await phone.until(1);
    expect(phone.tasks[0]).to.deep.include({ phone: SENDER, message: 'Acme alerts. Reply STOP to end.', sim: 1 });
    await receive(phone, SENDER, 'STOP', 0);
    await phone.until(2);
    // The sender opted out, and still hears that it worked.
    expect(phone.tasks[1]).to.deep.include({ phone: SENDER, message: 'You will get no more messages.', sim: 0 });
    await receive(phone, SENDER, 'START');
    await phone.until(3);
    expect(phone.tasks[2]).to.deep.include({ phone: SENDER, message: 'Welcome back.' });
    await other.settle();
    expect(other.total).to.equal(0);
  });

  it('sends no answer while the account has none configured (the default)', async () => {
    const phone = await receivingPhone(fx);
    await receive(phone, SENDER, 'HELP');
    await receive(phone, SENDER, 'STOP');
    await phone.settle();
    expect(phone.total).to.equal(0);
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER]);
  });

  it('honours the account\'s own stop words, and nothing at all once opt-out handling is off', async () => {
    const phone = await receivingPhone(fx);
    expect((await fx.tenant.api.get('/account/opt-out')).body).to.deep.equal({ enabled: true, extra_keywords: [], help_text: null, stop_reply: null, start_reply: null });
    expect((await fx.tenant.api.patch('/account/opt-out', { extra_keywords: ['BASTA'] })).status).to.equal(200);
    await receive(phone, SENDER, 'basta');
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER]);
    expect((await fx.tenant.api.patch('/account/opt-out', { enabled: false })).body.enabled).to.equal(false);
    await receive(phone, '+79161234568', 'STOP');
    expect(await suppressed(fx.tenant)).to.deep.equal([SENDER]);
  });

  it('refuses settings it cannot use with 400', async () => {
    expectError(await fx.tenant.api.patch('/account/opt-out', { enabled: 'yes' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.patch('/account/opt-out', {}), 400, 'validation_failed');
    expectError(await fx.tenant.api.patch('/account/opt-out', { help_text: 'x'.repeat(171) }), 400);
    expectError(await fx.tenant.api.patch('/account/opt-out', { extra_keywords: ['   '] }), 400, 'validation_failed');
  });

  it('keeps each account\'s list its own', async () => {
    const phone = await receivingPhone(fx);
    await receive(phone, SENDER, 'STOP');
    const other = await fx.gateway.services.accounts.create(`other-${Date.now()}`);
    const { key } = await fx.gateway.services.apiKeys.create(other.id, ['sms:send', 'suppressions:read']);
    const response = await fetch(`${fx.tenant.api.baseUrl}/sms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: SENDER, message: 'hi' }),
    });
    expect(response.status).to.equal(201);
  });
});
