// The text the legacy search reads lives in sms_search (migration 044), kept by triggers on sms:
// written when the SMS is stored, left alone by its status changes, redacted with it by retention,
// gone with the SMS or its account.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { recipientSalt, searchRowsOf, smsRow, smsWriters } from '../support/test-data.ts';
import { PhoneTraffic } from './phone-traffic.ts';

const DAY = 24 * 3600 * 1000;
const CUSTOMER = '+79005550123';

describe('retention: the searched text goes with the SMS text', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock });

  async function traffic(): Promise<PhoneTraffic> {
    return new PhoneTraffic(fx.tenant, await fx.taskPhone(UNPACED));
  }

  const searchRows = (accountId = fx.tenant.accountId) => searchRowsOf(fx, accountId);

  /** Ids of the legacy GET /sms?search= answer. */
  async function legacySearch(text: string): Promise<string[]> {
    const reply = await fx.tenant.root.get(`/sms?${new URLSearchParams({ limit: '100', search: text })}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body.sms_list.map((sms: { id: string }) => sms.id);
  }

  /** The legacy answer's ids are object ids: the SMS's own, for comparing. */
  const objectIdOf = async (id: string) => (await smsRow(fx, id)).object_id as string;

  it('copies an SMS\'s text once: its status changes to sent leave the row as it was written', async () => {
    const phone = await traffic();
    const id = await phone.send(CUSTOMER, 'parcel 4711 is on its way');
    // The SMS row was rewritten by its reports (processing, sent); the searched text was written
    // by the transaction that stored the SMS and its first history entry, and never again.
    expect((await smsRow(fx, id)).status).to.equal('sent');
    const writers = await smsWriters(fx, id);
    expect(writers.search).to.include({ message: 'parcel 4711 is on its way', phone: CUSTOMER });
    expect(writers.search.written_by).to.equal(writers.firstHistory);
    expect(writers.sms).not.to.equal(writers.search.written_by);
    expect(await legacySearch('4711')).to.deep.equal([await objectIdOf(id)]);
  });

  it('redacts the searched text and hashes its number with the SMS, so that its words are found no more', async () => {
    const phone = await traffic();
    const old = await phone.send(CUSTOMER, 'secret code 9911');
    const oldObjectId = await objectIdOf(old);
    expect(await legacySearch('9911')).to.deep.equal([oldObjectId]);
    expect((await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 7, hash_recipients: true })).status).to.equal(200);
    clock.advance(8 * DAY);
    await phone.phone.heartbeat();
    const fresh = await phone.send(CUSTOMER, 'fresh code 9912');
    expect(await fx.gateway.services.retentionSweep.runOnce()).to.include({ sms: 1 });

    const salt = await recipientSalt(fx, fx.tenant.accountId);
    const hashed = `hmac:${createHmac('sha256', salt).update(CUSTOMER).digest('hex')}`;
    expect(await searchRows()).to.deep.equal([
      { sms_id: old, message: '', phone: hashed },
      { sms_id: fresh, message: 'fresh code 9912', phone: CUSTOMER },
    ]);
    expect(await legacySearch('9911')).to.deep.equal([]);
    expect(await legacySearch('secret')).to.deep.equal([]);
    expect(await legacySearch('code')).to.deep.equal([await objectIdOf(fresh)]);
  });

  it('removes the searched text of a deleted SMS, and of every SMS of a deleted account', async () => {
    const phone = await traffic();
    const deleted = await phone.send(CUSTOMER, 'delete me');
    const kept = await phone.send(CUSTOMER, 'keep me');
    expect((await fx.tenant.root.request('DELETE', `/sms/del?id=${deleted}`)).status).to.equal(204);
    expect((await searchRows()).map((row) => row.sms_id)).to.deep.equal([kept]);

    const other = await fx.newTenant();
    const elsewhere = await other.api.post('/sms', { phone: CUSTOMER, message: 'another account' });
    expect(elsewhere.status).to.equal(201);
    await fx.gateway.services.accounts.remove(fx.tenant.accountId);
    expect(await searchRows()).to.deep.equal([]);
    expect((await searchRows(other.accountId)).map((row) => row.message)).to.deep.equal(['another account']);
  });
});
