// A data SMS as a modem sends it: one SMS-SUBMIT, 8-bit data coding, the 16-bit application port
// element in its user data header (destination port, originator 0), the payload after it;
// at most 133 payload octets beside the 7-octet header.
import { expect } from 'chai';
import { DATA_PAYLOAD_MAX, encodeDataSubmit, PduFormatError } from '../../agent/src/pdu/index.ts';
import type { OutgoingSms } from '../../agent/src/radio/radio.ts';
import { useModem } from '../agent/support/modem-fixture.ts';

describe('data SMS: the PDU a modem sends', () => {
  it('encodes DEADBEEF to port 2948 octet for octet (UDHI set, DCS 04, UDL 11, UDH 06 05 04 0B84 0000)', () => {
    const encoded = encodeDataSubmit({ phone: '+46708251358', bytes: Buffer.from('DEADBEEF', 'hex'), port: 2948 });
    expect(encoded).to.deep.equal({ pdu: '0041000B916407281553F800040B0605040B840000DEADBEEF', tpduLength: 24 });
    const reported = encodeDataSubmit({ phone: '+46708251358', bytes: Buffer.from('00', 'hex'), port: 65535, statusReport: true });
    expect(reported.pdu).to.equal('0061000B916407281553F8000408060504FFFF000000');
  });

  it('carries at most 133 payload octets, and refuses more rather than split them', () => {
    expect(DATA_PAYLOAD_MAX).to.equal(133);
    const full = encodeDataSubmit({ phone: '+46708251358', bytes: new Uint8Array(133), port: 80 });
    expect(full.tpduLength).to.equal(13 + 140);
    expect(() => encodeDataSubmit({ phone: '+46708251358', bytes: new Uint8Array(134), port: 80 })).to.throw(PduFormatError);
  });

  describe('through the modem radio', () => {
    const modem = useModem();

    it('goes out as one AT+CMGS whose PDU holds the port and the very bytes', async () => {
      const { radio, standin } = await modem.start();
      const bytes = Buffer.from(Array.from({ length: 133 }, (_, index) => (index * 7) % 256));
      const sms: OutgoingSms = { smsId: 'sms-1', phone: '+491511234567', message: '', simSlot: undefined, statusReport: true, data: { bytes, port: 16001 } };
      expect(radio.sendsData).to.equal(true);
      const result = await radio.send(sms);
      expect(standin.submits).to.have.length(1);
      const [submit] = standin.submits;
      expect(result).to.deep.equal({ ok: true, simSlot: 0, references: [submit!.reference] });
      expect(submit!.decoded.alphabet).to.equal('8bit');
      expect(submit!.decoded.recipient.value).to.equal('+491511234567');
      expect(submit!.lengthArgument).to.equal(submit!.pdu.length / 2 - 1);
      expect(submit!.pdu.endsWith(`0605043E810000${bytes.toString('hex').toUpperCase()}`)).to.equal(true);
    });
  });
});
