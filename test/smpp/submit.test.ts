// submit_sm: the text in each data coding the gateway takes, message_payload, concatenated parts
// (UDH with 8- and 16-bit references, SAR TLVs) joined into one SMS, schedule and validity, and
// the ESME_R* code for each bad field, on a connection that stays up.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

describe('SMPP: submit_sm', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let esme: TestEsme;
  beforeEach(async () => {
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 }));
  });
  afterEach(() => esme.close());

  async function submitted(fields: Record<string, unknown>): Promise<{ id: string; message: string; send_at: string | null; valid_until: string | null }> {
    const response = await esme.call('submit_sm', { destination_addr: '+79161234567', ...fields });
    expect(response.command_status, 'command_status').to.equal(STATUS.ESME_ROK);
    const sms = await fx.tenant.api.get(`/sms/${response.message_id}`);
    expect(sms.status).to.equal(200);
    return sms.body;
  }

  it('takes GSM-7 (0), ASCII (1), Latin-1 (3) and UCS-2 (8); message_id is the SMS id', async () => {
    expect((await submitted({ data_coding: 0, short_message: Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65, 0x00]) })).message).to.equal('Hi €@');
    expect((await submitted({ data_coding: 1, short_message: Buffer.from('Hello {world} $5 @ a_b', 'latin1') })).message).to.equal('Hello {world} $5 @ a_b');
    expect((await submitted({ data_coding: 3, short_message: Buffer.from('Grüße, café', 'latin1') })).message).to.equal('Grüße, café');
    expect((await submitted({ data_coding: 8, short_message: Buffer.from('Привет 👋', 'utf16le').swap16() })).message).to.equal('Привет 👋');
  });

  it('takes the text from message_payload when short_message is empty', async () => {
    const text = 'A'.repeat(160);
    expect((await submitted({ data_coding: 0, short_message: Buffer.alloc(0), message_payload: Buffer.from(text) })).message).to.equal(text);
  });

  it('joins parts numbered by UDH (8- and 16-bit references) or SAR TLVs into one SMS, answering every part with its id', async () => {
    const udh8 = (seq: number) => Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, seq]);
    const first = await esme.call('submit_sm', { destination_addr: '+79161234567', esm_class: 0x40, short_message: { udh: udh8(1), message: 'first half, ' } });
    const second = await esme.call('submit_sm', { destination_addr: '+79161234567', esm_class: 0x40, short_message: { udh: udh8(2), message: 'second half' } });
    expect(first.command_status).to.equal(0);
    expect(second.message_id).to.equal(first.message_id);
    expect((await fx.tenant.api.get(`/sms/${first.message_id}`)).body.message).to.equal('first half, second half');

    // 16-bit reference, UCS-2, parts out of order.
    const udh16 = (seq: number) => Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x02, seq]);
    const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const late = await esme.call('submit_sm', { destination_addr: '+79161234567', esm_class: 0x40, data_coding: 8, short_message: { udh: udh16(2), message: ucs2('мир') } });
    const early = await esme.call('submit_sm', { destination_addr: '+79161234567', esm_class: 0x40, data_coding: 8, short_message: { udh: udh16(1), message: ucs2('Привет, ') } });
    expect(late.message_id).to.equal(early.message_id);
    expect((await fx.tenant.api.get(`/sms/${late.message_id}`)).body.message).to.equal('Привет, мир');

    const sar = (seq: number, message: string) => ({ destination_addr: '+79161234567', short_message: message, sar_msg_ref_num: 777, sar_total_segments: 3, sar_segment_seqnum: seq });
    const ids = [];
    for (const [seq, part] of [[1, 'one '], [2, 'two '], [3, 'three']] as const) ids.push((await esme.call('submit_sm', sar(seq, part))).message_id);
    expect(new Set(ids).size).to.equal(1);
    expect((await fx.tenant.api.get(`/sms/${ids[0]}`)).body.message).to.equal('one two three');
  });

  it('maps schedule_delivery_time and validity_period (absolute and relative) to send_at and valid_until', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000);
    const sms = await submitted({ short_message: 'later', schedule_delivery_time: inAnHour, validity_period: '000001000000000R' });
    expect(Math.abs(new Date(sms.send_at!).getTime() - inAnHour.getTime())).to.be.below(1_000);
    expect(Math.abs(new Date(sms.valid_until!).getTime() - (Date.now() + 86_400_000))).to.be.below(5_000);
    // Absolute, written in UTC+1 (04 quarter hours): the same instant an hour earlier in UTC.
    const tomorrow = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 86_400_000);
    const local = new Date(tomorrow.getTime() + 3_600_000).toISOString();
    const written = `${local.slice(2, 4)}${local.slice(5, 7)}${local.slice(8, 10)}${local.slice(11, 13)}${local.slice(14, 16)}00004+`;
    const absolute = await submitted({ short_message: 'valid', validity_period: written });
    expect(absolute.valid_until).to.equal(tomorrow.toISOString());
  });

  it('answers each bad field with its code and keeps the session', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ destination_addr: '', short_message: 'x' }, STATUS.ESME_RINVDSTADR],
      [{ destination_addr: 'not-a-number', short_message: 'x' }, STATUS.ESME_RINVDSTADR],
      [{ destination_addr: '+79161234567', short_message: '' }, STATUS.ESME_RINVMSGLEN],
      [{ destination_addr: '+79161234567', short_message: 'x'.repeat(200) }, STATUS.ESME_RINVMSGLEN],
      [{ destination_addr: '+79161234567', data_coding: 4, short_message: Buffer.from([1, 2]) }, STATUS.ESME_RINVDCS],
      [{ destination_addr: '+79161234567', short_message: 'x', registered_delivery: 3 }, STATUS.ESME_RINVREGDLVFLG],
      [{ destination_addr: '+79161234567', short_message: 'x', esm_class: 0x04 }, STATUS.ESME_RINVESMCLASS],
      [{ destination_addr: '+79161234567', short_message: 'x', schedule_delivery_time: 'garbage' }, STATUS.ESME_RINVSCHED],
      [{ destination_addr: '+79161234567', short_message: 'x', validity_period: 'garbage' }, STATUS.ESME_RINVEXPIRY],
      [{ destination_addr: '+79161234567', short_message: 'x', validity_period: '000101000000000+' }, STATUS.ESME_RINVEXPIRY],
      [{ destination_addr: '+79161234567', short_message: 'x', sar_msg_ref_num: 1, sar_total_segments: 2 }, STATUS.ESME_RINVTLVVAL],
      [{ destination_addr: '+79161234567', short_message: 'x', sar_msg_ref_num: 1, sar_total_segments: 2, sar_segment_seqnum: 3 }, STATUS.ESME_RINVTLVVAL],
      [{ destination_addr: '+79161234567', esm_class: 0x40, short_message: { udh: Buffer.from([0x04, 0x00, 0x02, 0x01, 0x01]), message: 'x' } }, STATUS.ESME_RINVESMCLASS],
    ];
    for (const [fields, status] of cases) {
      const response = await esme.call('submit_sm', fields);
      expect(response.command_status, JSON.stringify(fields)).to.equal(status);
    }
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
  });

  it('sends through the devices the credential names, and only those', async () => {
    const { device: named } = await fx.registerDevice('named');
    await fx.registerDevice('other');
    const credential = await issueCredential(fx.tenant, { device_ids: [named.id] });
    const limited = await bindEsme(fx.gateway, credential, 'bind_transmitter');
    try {
      const response = await limited.call('submit_sm', { destination_addr: '+79161234567', short_message: 'via the named phone' });
      expect((await fx.tenant.api.get(`/sms/${response.message_id}`)).body.device_id).to.equal(named.id);
    } finally {
      limited.close();
    }
  });

  it('refuses submissions from a receiver (ESME_RINVBNDSTS) and before a bind', async () => {
    const credential = await issueCredential(fx.tenant);
    const receiver = await bindEsme(fx.gateway, credential, 'bind_receiver');
    try {
      expect((await receiver.call('submit_sm', { destination_addr: '+79161234567', short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVBNDSTS);
    } finally {
      receiver.close();
    }
  });
});
