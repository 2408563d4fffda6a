// GET /api/ext/v1/sms?search=...: the legacy list's search (text or phone as a case-insensitive
// substring, or a status, here by its Extended name or its legacy label) in the Extended list,
// combined with its filters and cursor paging; and ?phone=, one recipient exactly.
import { expect } from 'chai';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply, Tenant } from '../support/tenant.ts';
import { expectError } from '../support/expectations.ts';
import { userSession } from '../support/session-client.ts';
import { updateSms } from '../support/test-data.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

describe('extended API: searching the SMS list', () => {
  const fx = useGateway();

  /** Sends an SMS through the API; `minute` orders them (newest last), `status` as a report would set it. */
  async function send(phone: string, message: string, options: { minute?: number; status?: SmsStatus; owner?: Tenant; deviceId?: string } = {}): Promise<string> {
    const owner = options.owner ?? fx.tenant;
    const reply = await owner.api.post('/sms', { phone, message, ...(options.deviceId ? { device_id: options.deviceId } : {}) });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const values = { created_at: new Date(T0 + (options.minute ?? 0) * 60_000), ...(options.status ? { status: options.status } : {}) };
    await updateSms(fx, reply.body.id, values);
    return reply.body.id;
  }

  async function ids(query: Record<string, string>, owner: Tenant = fx.tenant): Promise<string[]> {
    const reply = await owner.api.get(`/sms?${new URLSearchParams(query)}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body.data.map((sms: { id: string }) => sms.id);
  }

  it('matches the message and the phone as case-insensitive substrings, newest first; % and _ are literal', async () => {
    const invoice = await send('+79161234567', 'Your INVOICE is ready', { minute: 1 });
    const percent = await send('+79160000000', 'a 100% discount', { minute: 2 });
    const phone = await send('+4915112345678', 'hallo', { minute: 3 });
    expect(await ids({ search: 'invoice' })).to.deep.equal([invoice]);
    expect(await ids({ search: '4915112' })).to.deep.equal([phone]);
    expect(await ids({ search: '916' })).to.deep.equal([percent, invoice]);
    expect(await ids({ search: '100%' })).to.deep.equal([percent]);
    expect(await ids({ search: '%' })).to.deep.equal([percent]);
    expect(await ids({ search: '_' })).to.deep.equal([]);
    expect(await ids({ search: '' }), 'an empty search is no search').to.have.length(3);
  });

  it('matches a status by its Extended name or its legacy label, as the legacy search does', async () => {
    const failed = await send('+79161234567', 'one', { minute: 1, status: 'failed_send' });
    const undelivered = await send('+79161234567', 'two', { minute: 2, status: 'failed_delivery' });
    const pending = await send('+79161234567', 'three', { minute: 3 });
    expect(await ids({ search: 'failed_send' })).to.deep.equal([failed]);
    expect(await ids({ search: 'FAILED' }), 'failed_send and failed_delivery by name, failed_send by its label').to.deep.equal([undelivered, failed]);
    expect(await ids({ search: 'undelivered' }), 'the legacy label of failed_delivery').to.deep.equal([undelivered]);
    expect(await ids({ search: 'waiting' }), 'the legacy label of pending').to.deep.equal([pending]);
  });

  it('combines with status, device, time and phone filters, and pages with the cursor', async () => {
    const { device } = await fx.registerDevice();
    const matches: string[] = [];
    for (let minute = 0; minute < 5; minute++) matches.unshift(await send('+79161234567', `order ${minute}`, { minute, deviceId: device.id }));
    await send('+79161234567', 'order elsewhere', { minute: 6 });
    await send('+79169999999', 'order other phone', { minute: 7, deviceId: device.id });
    await send('+79161234567', 'order sent', { minute: 8, status: 'sent', deviceId: device.id });
    await send('+79161234567', 'unrelated', { minute: 9, deviceId: device.id });

    const query = { search: 'order', status: 'pending', device_id: device.id, phone: '+7 916 123-45-67' };
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: Reply = await fx.tenant.api.get(`/sms?${new URLSearchParams({ ...query, limit: '2', ...(cursor ? { cursor } : {}) })}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.data.length).to.be.at.most(2);
      walked.push(...reply.body.data.map((sms: { id: string }) => sms.id));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(walked).to.deep.equal(matches);
    expect(await ids({ ...query, from: new Date(T0 + 3 * 60_000).toISOString() })).to.deep.equal(matches.slice(0, 2));
  });

  it('phone= matches one recipient exactly, normalized as when sending; a malformed one is 400 invalid_phone', async () => {
    const mine = await send('+79161234567', 'hi');
    await send('+79161234568', 'next number');
    expect(await ids({ phone: '+79161234567' })).to.deep.equal([mine]);
    expectError(await fx.tenant.api.get('/sms?phone=not-a-phone'), 400, 'invalid_phone');
    expectError(await fx.tenant.api.get(`/sms?search=${'x'.repeat(101)}`), 400, 'validation_failed');
  });

  it('never finds another account\'s SMS, and a viewer may search', async () => {
    const other = await fx.newTenant();
    await send('+79161234567', 'secret plan', { owner: other });
    const mine = await send('+79161234567', 'my plan');
    expect(await ids({ search: 'plan' })).to.deep.equal([mine]);
    expect(await ids({ search: 'secret' })).to.deep.equal([]);
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    const reply = await viewer.get('/sms?search=plan');
    expect(reply.status).to.equal(200);
    expect(reply.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([mine]);
  });
});
