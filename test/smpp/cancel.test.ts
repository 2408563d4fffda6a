// Cancelling an SMS that has already ended: refused both ways, and the same each time. Over the
// API 409 already_final; over SMPP cancel_sm ESME_RCANCELFAIL. (One a phone holds and that is
// not final yet stays already_taken: test/delivery/cancel.test.ts.)
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { expectError } from '../support/expectations.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

describe('SMPP and the API: cancelling an SMS already final', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let esme: TestEsme | undefined;
  afterEach(() => esme?.close());

  it('refuses a delivered SMS: cancel_sm ESME_RCANCELFAIL (twice), the API 409 already_final', async function () {
    this.timeout(60_000);
    await fx.connectDevice();
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant));
    const submitted = await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'to be delivered', registered_delivery: 1 });
    expect(submitted.command_status).to.equal(STATUS.ESME_ROK);
    const id = String(submitted.message_id);
    await esme.receiptOf(id);
    await eventually('the SMS is delivered', async () => ((await fx.tenant.api.get(`/sms/${id}`)).body.status === 'delivered' ? true : undefined));
    for (let i = 0; i < 2; i++) {
      expect((await esme.call('cancel_sm', { message_id: id, destination_addr: '+79161234567' })).command_status).to.equal(STATUS.ESME_RCANCELFAIL);
    }
    expectError(await fx.tenant.api.post(`/sms/${id}/cancel`), 409, 'already_final');
    expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'delivered' });
  });
});
