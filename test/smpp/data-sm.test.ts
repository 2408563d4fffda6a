// data_sm: submit_sm's other form, the text in message_payload, answered data_sm_resp with the SMS
// id; qos_time_to_live is the validity; SAR TLVs join parts; receipts come as for submit_sm.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

describe('SMPP: data_sm', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let esme: TestEsme;
  beforeEach(async () => {
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 }));
  });
  afterEach(() => esme.close());

  const data = (fields: Record<string, unknown>) => esme.call('data_sm', { source_addr: 'Shop', dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '79161234567', ...fields });

  it('stores an SMS from message_payload, answers data_sm_resp with its id, and sends its receipt', async () => {
    await fx.connectDevice();
    const response = await data({ data_coding: 0, message_payload: 'Sent with data_sm', registered_delivery: 1 });
    expect(response.command).to.equal('data_sm_resp');
    expect(response.command_status).to.equal(STATUS.ESME_ROK);
    const sms = (await fx.tenant.api.get(`/sms/${response.message_id}`)).body;
    expect(sms).to.include({ message: 'Sent with data_sm', phone: '+79161234567' });
    const receipt = await esme.receiptOf(response.message_id);
    expect((receipt.short_message as { message: string }).message).to.match(/stat:DELIVRD/);
  });

  it('reads UCS-2, takes qos_time_to_live as the validity, and joins SAR parts', async () => {
    const unicode = await data({ data_coding: 8, message_payload: Buffer.from('Привет 👋', 'utf16le').swap16() });
    expect((await fx.tenant.api.get(`/sms/${unicode.message_id}`)).body.message).to.equal('Привет 👋');

    const before = Date.now();
    const living = await data({ message_payload: 'an hour', qos_time_to_live: 3600 });
    const validUntil = Date.parse((await fx.tenant.api.get(`/sms/${living.message_id}`)).body.valid_until);
    expect(validUntil - before).to.be.within(3_590_000, 3_610_000);

    const part = (seq: number, text: string) => data({ message_payload: text, sar_msg_ref_num: 42, sar_total_segments: 2, sar_segment_seqnum: seq });
    const first = await part(1, 'first, ');
    const second = await part(2, 'second');
    expect(second.message_id).to.equal(first.message_id);
    expect((await fx.tenant.api.get(`/sms/${first.message_id}`)).body.message).to.equal('first, second');
  });

  it('answers each bad field with its code, on a session that stays up', async () => {
    expect((await data({})).command_status).to.equal(STATUS.ESME_RINVMSGLEN);
    expect((await data({ message_payload: 'x', dest_addr_ton: 0 })).command_status).to.equal(STATUS.ESME_RINVDSTADR);
    expect((await data({ message_payload: Buffer.from([1, 2]), data_coding: 4 })).command_status).to.equal(STATUS.ESME_RINVDCS);
    expect((await data({ message_payload: 'x', qos_time_to_live: 0 })).command_status).to.equal(STATUS.ESME_RINVEXPIRY);
    expect((await data({ message_payload: 'x', dest_port: 2948 })).command_status).to.equal(STATUS.ESME_ROPTPARNOTALLWD);
    const receiver = await bindEsme(fx.gateway, await issueCredential(fx.tenant), 'bind_receiver');
    expect((await receiver.call('data_sm', { destination_addr: '+79161234567', message_payload: 'x' })).command_status).to.equal(STATUS.ESME_RINVBNDSTS);
    receiver.close();
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
  });
});
