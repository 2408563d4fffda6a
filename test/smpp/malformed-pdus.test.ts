// A submit_sm whose own lengths do not hold together is answered with the code for what is
// wrong, and the session stays open: UCS-2 in an odd number of octets, half a surrogate pair,
// sm_length, a TLV or a user data header longer than what follows, a TLV of the wrong size for
// its tag (which used to close the session), octets after the last TLV that are no TLV.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { encoded, RawSession, tlv, withTail } from './raw-session.ts';

const SUBMIT_SM_RESP = 0x80000004;
const ENQUIRE_LINK_RESP = 0x80000015;
const TO = { destination_addr: '+79161234567', dest_addr_ton: 1 };
const ucs2 = (octets: number[]) => Buffer.from(octets);

describe('SMPP: malformed submit_sm', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let session: RawSession;
  let sequence = 10;
  beforeEach(async () => {
    session = await RawSession.bound(fx.gateway.smppPort, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 }));
  });
  afterEach(() => session.close());

  async function expectRefused(pdu: Buffer, status: number): Promise<void> {
    const answer = await session.exchange(pdu);
    expect(answer, 'an answer, not a closed connection').to.not.equal(undefined);
    expect(answer!.commandId).to.equal(SUBMIT_SM_RESP);
    expect(answer!.status).to.equal(status);
    expect(answer!.sequence).to.equal(pdu.readUInt32BE(12));
    const link = await session.exchange(encoded('enquire_link', {}, ++sequence));
    expect(link?.commandId, 'the session is still open').to.equal(ENQUIRE_LINK_RESP);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(0);
  }

  const submit = (fields: Record<string, unknown>) => encoded('submit_sm', { ...TO, ...fields }, ++sequence);

  it('when UCS-2 text has an odd number of octets, then ESME_RINVMSGLEN', async () => {
    await expectRefused(submit({ data_coding: 8, short_message: ucs2([0x00, 0x41, 0x00, 0x42, 0x43]) }), STATUS.ESME_RINVMSGLEN);
    await expectRefused(withTail(submit({ data_coding: 8, short_message: Buffer.alloc(0) }), tlv(0x0424, 3, ucs2([0x00, 0x41, 0x42]))), STATUS.ESME_RINVMSGLEN);
  });

  it('when UCS-2 text holds half a surrogate pair, then ESME_RINVDCS', async () => {
    await expectRefused(submit({ data_coding: 8, short_message: ucs2([0xd8, 0x3d, 0x00, 0x41]) }), STATUS.ESME_RINVDCS);
    await expectRefused(submit({ data_coding: 8, short_message: ucs2([0x00, 0x41, 0xde, 0x00]) }), STATUS.ESME_RINVDCS);
  });

  it('when sm_length says more octets than the PDU has, then ESME_RINVMSGLEN', async () => {
    const pdu = submit({ short_message: 'hello' });
    pdu[pdu.length - 6] = 50;
    await expectRefused(pdu, STATUS.ESME_RINVMSGLEN);
  });

  it('when a TLV says more octets than the PDU has, then ESME_RINVTLVLEN', async () => {
    await expectRefused(withTail(submit({ short_message: Buffer.alloc(0) }), tlv(0x0424, 100, Buffer.from('hello'))), STATUS.ESME_RINVTLVLEN);
  });

  it('when a user data header says more octets than the message has, then ESME_RINVMSGLEN; one whose element runs past it, ESME_RINVESMCLASS', async () => {
    await expectRefused(submit({ esm_class: 0x40, short_message: Buffer.from([0x10, 0x00, 0x03, 0x01, 0x02, 0x01]) }), STATUS.ESME_RINVMSGLEN);
    await expectRefused(submit({ esm_class: 0x40, short_message: Buffer.from([0x05, 0x00, 0x07, 0x01, 0x02, 0x01, 0x41]) }), STATUS.ESME_RINVESMCLASS);
  });

  it('when a TLV has the wrong size for its tag, then ESME_RINVTLVLEN, at the end of the PDU or before another', async () => {
    // sar_msg_ref_num takes 2 octets: 1 at the very end used to throw in the codec and close the session.
    const sar = (ref: Buffer, refLength: number) => Buffer.concat([tlv(0x020e, 1, Buffer.from([2])), tlv(0x020f, 1, Buffer.from([1])), tlv(0x020c, refLength, ref)]);
    await expectRefused(withTail(submit({ short_message: 'x' }), sar(Buffer.from([7]), 1)), STATUS.ESME_RINVTLVLEN);
    // sar_total_segments takes 1 octet.
    await expectRefused(withTail(submit({ short_message: 'x' }), Buffer.concat([tlv(0x020e, 2, Buffer.from([0, 2])), tlv(0x020f, 1, Buffer.from([1])), tlv(0x020c, 2, Buffer.from([0, 7]))])), STATUS.ESME_RINVTLVLEN);
  });

  it('when octets after the last TLV are too few for a TLV, then ESME_RINVTLVSTREAM', async () => {
    await expectRefused(withTail(submit({ short_message: 'x' }), Buffer.from([0x04, 0x24])), STATUS.ESME_RINVTLVSTREAM);
  });
});
