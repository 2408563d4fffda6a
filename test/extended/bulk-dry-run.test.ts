// POST /api/ext/v1/sms/bulk?dry_run=true: every message checked by the rules of the real call
// (the same code), each answered with its result, valid (the SMS as it would be sent) or invalid
// (its errors), and nothing created; JSON or CSV. A preview of a CSV before sending it.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError, UNKNOWN_ID } from '../support/expectations.ts';
import { userSession } from '../support/session-client.ts';
import { smsRowsOf } from '../support/test-data.ts';

describe('extended API: bulk send dry run', () => {
  const fx = useGateway();

  const storedSms = (accountId = fx.tenant.accountId) => smsRowsOf(fx, accountId);

  it('answers 200 with each message\'s result, valid or with its errors, and creates nothing', async () => {
    const reply = await fx.tenant.api.post('/sms/bulk?dry_run=true', {
      messages: [
        { phone: '+7 916 123-45-67', message: 'hello', priority: 5, category: 'otp' },
        { phone: 'nope', message: '' },
        { phone: '+79161234567', message: 'x'.repeat(171) },
        { phone: '+79161234567', message: 'to a stranger', device_id: UNKNOWN_ID },
        { phone: '+79161234567', message: 'two at once', valid_until: '2099-01-01T00:00:00Z', ttl: 60 },
        'not an object',
      ],
    });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const [valid, ...invalid] = reply.body.data;
    expect(valid).to.deep.equal({
      index: 0, valid: true, phone: '+79161234567', message: 'hello', device_id: null, send_at: null, valid_until: null, priority: 5, segments: 1, encoding: 'gsm7',
      category: 'otp',
    });
    expect(invalid.map((result: { index: number; valid: boolean }) => [result.index, result.valid])).to.deep.equal([[1, false], [2, false], [3, false], [4, false], [5, false]]);
    const fieldsOf = (index: number) => reply.body.data[index].errors.map((error: { field: string }) => error.field);
    expect(fieldsOf(1)).to.include('message');
    expect(fieldsOf(2)).to.deep.equal(['message']);
    expect(fieldsOf(3)).to.deep.equal(['device_id']);
    expect(fieldsOf(4)).to.deep.equal(['ttl']);
    for (const result of invalid) {
      for (const error of result.errors) expect(error).to.have.all.keys('field', 'message');
    }
    expect(await storedSms()).to.have.length(0);
  });

  it('answers the same problems the real call refuses with, and all-valid messages dry-run to the SMS the real call makes', async () => {
    const messages = [{ phone: '+79161234567', message: 'a' }, { phone: '12', message: 'b' }];
    const real = await fx.tenant.api.post('/sms/bulk', { messages });
    expectError(real, 400);
    const dry = await fx.tenant.api.post('/sms/bulk?dry_run=true', { messages });
    expect(real.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(
      dry.body.data[1].errors.map((error: { field: string }) => `messages.1.${error.field}`),
    );

    const good = [{ phone: '+79161234567', message: 'a', send_at: new Date(Date.now() + 86_400_000).toISOString() }];
    const preview = await fx.tenant.api.post('/sms/bulk?dry_run=true', { messages: good });
    const sent = await fx.tenant.api.post('/sms/bulk', { messages: good });
    expect(sent.status).to.equal(201);
    const { index, valid, ...asSent } = preview.body.data[0];
    expect({ index, valid }).to.deep.equal({ index: 0, valid: true });
    expect(asSent).to.deep.include({ phone: sent.body.data[0].phone, send_at: sent.body.data[0].send_at, segments: sent.body.data[0].segments });
    expect(await storedSms()).to.have.length(1);
  });

  it('takes CSV, reporting each row by its index', async () => {
    const csv = 'phone,message,priority\n+79161234567,first,1\nbad,second,2\n+79161234567,third,500\n';
    const reply = await fx.tenant.api.request('POST', '/sms/bulk?dry_run=true', csv, { 'content-type': 'text/csv' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.data.map((result: { valid: boolean }) => result.valid)).to.deep.equal([true, false, false]);
    expect(reply.body.data[1].errors[0].field).to.equal('phone');
    expect(reply.body.data[2].errors[0].field).to.equal('priority');
    expect(await storedSms()).to.have.length(0);
  });

  it('a body that is not a batch is still a 400: no messages, too many, a CSV without its columns, a bad dry_run', async () => {
    expectError(await fx.tenant.api.post('/sms/bulk?dry_run=true', { messages: [] }), 400, 'validation_failed');
    expectError(await fx.tenant.api.post('/sms/bulk?dry_run=true', { messages: Array.from({ length: 1001 }, () => ({ phone: '+79161234567', message: 'x' })) }), 400);
    expectError(await fx.tenant.api.request('POST', '/sms/bulk?dry_run=true', 'name\nx\n', { 'content-type': 'text/csv' }), 400, 'validation_failed');
    expectError(await fx.tenant.api.post('/sms/bulk?dry_run=maybe', { messages: [{ phone: '+79161234567', message: 'x' }] }), 400, 'validation_failed');
    expect(await storedSms()).to.have.length(0);
  });

  it('a device of another account is invalid; a key without sms:send and a viewer session are 403', async () => {
    const other = await fx.newTenant();
    const { device } = await fx.registerDevice('theirs', other);
    const reply = await fx.tenant.api.post('/sms/bulk?dry_run=true', { messages: [{ phone: '+79161234567', message: 'x', device_id: device.id }] });
    expect(reply.body.data[0]).to.include({ valid: false });
    expect(reply.body.data[0].errors[0].field).to.equal('device_id');
    const readOnly = await fx.keyWith(['sms:read']);
    expectError(await readOnly.post('/sms/bulk?dry_run=true', { messages: [{ phone: '+79161234567', message: 'x' }] }), 403, 'forbidden');
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expectError(await viewer.post('/sms/bulk?dry_run=true', { messages: [{ phone: '+79161234567', message: 'x' }] }), 403, 'forbidden');
    expect(await storedSms(other.accountId)).to.have.length(0);
  });
});
