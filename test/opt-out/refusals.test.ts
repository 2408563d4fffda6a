// A suppressed recipient is refused by every way in, each in its own words: the Extended API (422
// recipient_opted_out; in a bulk send one bad row among 1,000, looked up in one query), the legacy
// API, the Twilio-compatible API (21610) and SMPP (ESME_RX_R_APPNACK).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { createCredential, messagesPath, twilioRequest } from '../twilio/support.ts';
import { ordinaryClients } from './support.ts';
import { smsCountOf } from '../support/test-data.ts';
import { OPTED_OUT_DETAIL } from '../../src/modules/messages/service.ts';

const OPTED_OUT = '+79161234567';

describe('opt-out: sends to a suppressed number are refused', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  beforeEach(async () => {
    expect((await fx.tenant.api.post('/suppressions', { phone: OPTED_OUT })).status).to.equal(201);
  });

  const smsCount = () => smsCountOf(fx, fx.tenant.accountId);

  it('marks the one suppressed row of a bulk of 1,000 as bad, with one suppression query for all', async () => {
    const { api } = await ordinaryClients(fx);
    const messages = Array.from({ length: 1000 }, (_, index) => ({ phone: `+7916200${String(index).padStart(4, '0')}`, message: `m${index}` }));
    messages[617] = { phone: OPTED_OUT, message: 'to the one who said STOP' };
    const queries: string[] = [];
    const count = (query: { sql: string }) => void (/suppressions/.test(query.sql) && queries.push(query.sql));
    fx.gateway.services.db.on('query', count);
    try {
      const preview = await api.post('/sms/bulk?dry_run=true', { messages });
      expect(preview.status, JSON.stringify(preview.body).slice(0, 300)).to.equal(200);
      const invalid = preview.body.data.map((row: { valid: boolean }, index: number) => (row.valid ? -1 : index)).filter((index: number) => index >= 0);
      expect(invalid).to.deep.equal([617]);
      expect(preview.body.data[617].errors).to.deep.equal([{ field: 'phone', message: OPTED_OUT_DETAIL, code: 'recipient_opted_out' }]);
      expect(queries).to.have.length(1);

      const sent = await api.post('/sms/bulk', { messages });
      expectError(sent, 400, 'validation_failed');
      expect(sent.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['messages.617.phone']);
      // Words for people first; the code for programs in a field of its own.
      expect(sent.body.error.details[0]).to.deep.equal({ field: 'messages.617.phone', in: 'body', message: `message 617: ${OPTED_OUT_DETAIL}`, code: 'recipient_opted_out' });
      expect(OPTED_OUT_DETAIL).to.match(/^the recipient has opted out/);
      expect(queries).to.have.length(2);
    } finally {
      fx.gateway.services.db.off('query', count);
    }
    expect(await smsCount()).to.equal(0);
    // Without the suppressed row, the other 999 are accepted.
    const accepted = await api.post('/sms/bulk', { messages: messages.filter((_, index) => index !== 617) });
    expect(accepted.status).to.equal(201);
    expect(accepted.body.data).to.have.length(999);
    // A key holding sms:send_transactional sends the whole bulk.
    expect((await fx.tenant.api.post('/sms/bulk', { messages: [{ phone: OPTED_OUT, message: 'code 1234' }] })).status).to.equal(201);
  });

  it('refuses POST /sms with 422 whatever form the number is written in', async () => {
    const { api } = await ordinaryClients(fx);
    const refused = await api.post('/sms', { phone: '0079161234567', message: 'hi' });
    expectError(refused, 422, 'recipient_opted_out');
    expect(refused.body.error.details).to.deep.equal([{ field: 'phone', in: 'body', message: OPTED_OUT_DETAIL, code: 'recipient_opted_out' }]);
    expect(await smsCount()).to.equal(0);
  });

  it('refuses the legacy POST /sms/send with 422 recipient_opted_out in the legacy error body', async () => {
    const { root } = await ordinaryClients(fx);
    const reply = await root.post('/sms/send', { message: 'hi', phone_number: OPTED_OUT });
    expectError(reply, 422, 'recipient_opted_out');
    expect((await root.post('/sms/send', { message: 'hi', phone_number: '+79161234568' })).status).to.equal(200);
  });

  it('refuses the Twilio-compatible API with Twilio\'s 21610', async () => {
    const credential = await createCredential(fx.tenant);
    const auth = { sid: credential.account_sid, token: credential.auth_token };
    const reply = await twilioRequest(fx.baseUrl, 'POST', `${messagesPath(credential.account_sid)}.json`, auth, { To: OPTED_OUT, Body: 'hi' });
    expect(reply.status).to.equal(400);
    expect(reply.body).to.deep.include({ code: 21610, message: 'Attempt to send to unsubscribed recipient', status: 400 });
    expect(await smsCount()).to.equal(0);
  });

  it('refuses SMPP submit_sm with ESME_RX_R_APPNACK, on a session that stays up', async () => {
    const esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant));
    try {
      expect((await esme.call('submit_sm', { destination_addr: OPTED_OUT, short_message: 'hi' })).command_status).to.equal(STATUS.ESME_RX_R_APPNACK);
      expect((await esme.call('submit_sm', { destination_addr: '+79161234568', short_message: 'hi' })).command_status).to.equal(STATUS.ESME_ROK);
    } finally {
      await esme.close();
    }
  });

  it('sends again once the number is taken off the list', async () => {
    const { api } = await ordinaryClients(fx);
    expect((await fx.tenant.api.delete(`/suppressions/${encodeURIComponent(OPTED_OUT)}`)).status).to.equal(204);
    expect((await api.post('/sms', { phone: OPTED_OUT, message: 'hi' })).status).to.equal(201);
    expectError(await fx.tenant.api.delete(`/suppressions/${encodeURIComponent(OPTED_OUT)}`), 404, 'suppression_not_found');
  });
});
