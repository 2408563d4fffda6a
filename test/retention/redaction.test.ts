// Retention: an account keeps message text N days; the sweep (driven by the gateway's clock)
// then removes the text of sent SMS that left the queue and of received SMS, keeping rows,
// statuses and counts, and with hash_recipients keeps numbers only as HMAC-SHA256 hashes under
// the account's salt.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';
import { PhoneTraffic } from './phone-traffic.ts';
import { smsRowsOf, incomingRowsOf, recipientSalt } from '../support/test-data.ts';

const DAY = 24 * 3600 * 1000;
const CUSTOMER = '+79005550111';

describe('retention: message text kept N days, then redacted', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock });

  async function traffic(): Promise<PhoneTraffic> {
    return new PhoneTraffic(fx.tenant, await fx.taskPhone({ ...UNPACED, forward_incoming_sms: true }));
  }

  const smsRows = () => smsRowsOf(fx, fx.tenant.accountId);
  const incomingRows = () => incomingRowsOf(fx, fx.tenant.accountId);

  it('keeps text for ever by default, and refuses a bad setting or a key without sms:delete', async () => {
    expect((await fx.tenant.api.get('/account/retention')).body).to.deep.equal({ keep_text_days: null, hash_recipients: false, updated_at: null });
    expectError(await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 0 }), 400, 'validation_failed');
    expectError(await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: '30' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 30, extra: true }), 400, 'validation_failed');
    const reader = await fx.keyWith(['sms:read']);
    expectError(await reader.request('PUT', '/account/retention', { keep_text_days: 30 }), 403, 'forbidden');
    const set = await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 30 });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.include({ keep_text_days: 30, hash_recipients: false });
  });

  it('redacts sent and received text older than N days by the gateway clock, keeping rows, statuses and counts', async () => {
    const phone = await traffic();
    const oldSent = await phone.send(CUSTOMER, 'old secret out');
    await phone.receive(CUSTOMER, 'old secret in');
    // Still queued: its text is still needed, whatever its age.
    const queued = await fx.tenant.api.post('/sms', { phone: CUSTOMER, message: 'scheduled later', send_at: new Date(clock.now() + 60 * DAY).toISOString() });
    expect(queued.status).to.equal(201);
    expect((await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 30 })).status).to.equal(200);

    // Not yet 30 days: nothing changes.
    clock.advance(29 * DAY);
    await fx.gateway.services.retentionSweep.runOnce();
    expect((await smsRows()).map((row) => row.message)).to.include('old secret out');

    clock.advance(2 * DAY);
    await phone.phone.heartbeat();
    const freshSent = await phone.send(CUSTOMER, 'fresh out');
    const before = { sms: (await smsRows()).length, incoming: (await incomingRows()).length };
    const outcome = await fx.gateway.services.retentionSweep.runOnce();
    expect(outcome).to.include({ sms: 1, incoming: 1 });

    const sms = await smsRows();
    expect(sms).to.have.length(before.sms);
    const old = sms.find((row) => row.id === oldSent)!;
    expect(old).to.include({ message: '', status: 'sent', phone: CUSTOMER });
    expect(old.redacted_at).to.be.instanceOf(Date);
    expect(sms.find((row) => row.id === freshSent)).to.include({ message: 'fresh out', redacted_at: null });
    expect(sms.find((row) => row.id === queued.body.id)).to.include({ message: 'scheduled later', redacted_at: null });
    const incoming = await incomingRows();
    expect(incoming).to.have.length(before.incoming);
    expect(incoming[0]).to.include({ message: '', phone: CUSTOMER });
    // Nothing of the text is left anywhere in the account's message rows.
    expect(JSON.stringify([...sms, ...incoming])).not.to.include('secret');

    expect((await fx.tenant.api.get(`/sms/${oldSent}`)).body).to.include({ message: '', status: 'sent' });
    const thread = await fx.tenant.api.get(`/conversations/${encodeURIComponent(CUSTOMER)}/messages`);
    // (Received SMS take their time from the database, sent ones from the gateway's clock, which this test holds still.)
    expect(thread.body.data.map((entry: any) => [entry.message, entry.redacted])).to.have.deep.members([
      ['fresh out', false],
      ['scheduled later', false],
      ['', true],
      ['', true],
    ]);
    // A second run finds nothing more to do.
    expect(Object.values(await fx.gateway.services.retentionSweep.runOnce()).every((count) => count === 0)).to.equal(true);
  });

  it('with hash_recipients keeps numbers only as HMAC-SHA256 under the account\'s salt, alike for the same number', async () => {
    const phone = await traffic();
    await phone.send(CUSTOMER, 'one');
    await phone.send(CUSTOMER, 'two');
    await phone.receive(CUSTOMER, 'three');
    const set = await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 7, hash_recipients: true });
    expect(set.body).to.include({ keep_text_days: 7, hash_recipients: true });
    clock.advance(8 * DAY);
    const outcome = await fx.gateway.services.retentionSweep.runOnce();
    expect(outcome).to.include({ sms: 2, incoming: 1, conversations: 1 });

    const salt = await recipientSalt(fx, fx.tenant.accountId);
    const expected = `hmac:${createHmac('sha256', salt).update(CUSTOMER).digest('hex')}`;
    const phones = [...(await smsRows()), ...(await incomingRows())].map((row) => row.phone);
    expect(phones).to.deep.equal([expected, expected, expected]);
    const list = await fx.tenant.api.get('/conversations');
    expect(list.body.data.map((conversation: any) => conversation.phone)).to.deep.equal([expected]);
    // The hashed conversation still reads its (redacted) thread.
    const thread = await fx.tenant.api.get(`/conversations/${expected}/messages`);
    expect(thread.body.data).to.have.length(3);
    // Another account's salt differs: the same number hashes otherwise there.
    const other = await fx.newTenant();
    await other.api.request('PUT', '/account/retention', { keep_text_days: 7, hash_recipients: true });
    const otherSalt = await recipientSalt(fx, other.accountId);
    expect(otherSalt).not.to.equal(salt);
  });
});
