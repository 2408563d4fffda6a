// Received SMS (SMS-DELIVER) as modems hand them over, from PDUs other projects publish.
import { expect } from 'chai';
import { decodePdu, PduFormatError, type DecodedDeliver } from '../../../agent/src/pdu/index.ts';

function deliver(hex: string, tpduLength?: number): DecodedDeliver {
  const decoded = decodePdu(hex, tpduLength);
  if (decoded.type !== 'deliver') throw new Error(`expected a DELIVER, got ${decoded.type}`);
  return decoded;
}

describe('PDU codec: received SMS (SMS-DELIVER)', () => {
  describe('when the "hellohello" PDU of the dreamfabric tutorial and the Wikipedia article is read', () => {
    it('then the centre, the sender, the time with its +2 h zone and the text come out', () => {
      const sms = deliver('07917283010010F5040BC87238880900F10000993092516195800AE8329BFD4697D9EC37');
      expect(sms.smsc).to.equal('+27381000015');
      // Type of address C8 (subscriber number, national plan): not international, so no + in front.
      expect(sms.sender).to.deep.equal({ value: '27838890001', type: 'other' });
      expect(sms.serviceCentreTime.toISOString()).to.equal('2099-03-29T13:16:59.000Z');
      expect(sms.offsetMinutes).to.equal(120);
      expect(sms.text).to.equal('hellohello');
      expect(sms.concatenation).to.equal(undefined);
    });
  });

  describe('when the DELIVER PDUs of python-gsmmodem\'s test suite are read', () => {
    it('then a short one gives sender, time and text', () => {
      const sms = deliver('06917228195339040B917228214365F700003130805120618005D4F29C2E03');
      expect(sms.smsc).to.equal('+2782913593');
      expect(sms.sender.value).to.equal('+27821234567');
      expect(sms.serviceCentreTime.toISOString()).to.equal('2013-03-08T13:02:16.000Z');
      expect(sms.text).to.equal('Test2');
    });

    it('then a longer one in a +8 h zone reads whole', () => {
      const sms = deliver(
        '07915892000000F0040B915892214365F700007040213252242331493A283D0795C3F33C88FE06C9CB6132885EC6D341EDF27C1E3E97E7207B3A0C0A5241E377BB1D7693E72E',
      );
      expect(sms.smsc).to.equal('+85290000000');
      expect(sms.sender.value).to.equal('+85291234567');
      expect(sms.serviceCentreTime.toISOString()).to.equal('2007-04-12T15:25:42.000Z');
      expect(sms.text).to.equal('It is easy to read text messages via AT commands.');
    });

    it('then extension characters ({ and }) read back', () => {
      expect(deliver('06917228195339040B917228214365F70000313062315352800A800D8A5E98D337A910').text).to.equal('@{tést}!');
    });

    it('then a concatenated one (8-bit reference C3, part 1 of 1) keeps its text after the header and fill bit', () => {
      const sms = deliver(
        '0591721891F1400781721881F800003160526104848059050003C30101916536FB1DCABEEB2074D85E064941B19CAB060319A5C522289C96D3D3ED32286C0FA7D96131BBEC024941B19CAB0603DDD36C36A88C87A7E565D0DB0D82C55EB0DB4B068BCD5C20',
      );
      expect(sms.sender).to.deep.equal({ value: '2781188', type: 'other' });
      expect(sms.smsc).to.equal('+2781191');
      expect(sms.concatenation).to.deep.equal({ reference: 0xc3, referenceBits: 8, total: 1, sequence: 1 });
      expect(sms.text).to.equal('Hello!You have R 19.50 FREE airtime available. R 19.50 will expire on 01/07/2013. ');
    });
  });

  describe('when the Diafaan example with an alphanumeric sender is read', () => {
    it('then the sender is the name "diafaan"', () => {
      const sms = deliver('0791448720003023240DD0E474D81C0EBB010000111011315214000BE474D81C0EBB5DE3771B');
      expect(sms.smsc).to.equal('+447802000332');
      expect(sms.sender).to.deep.equal({ value: 'diafaan', type: 'alphanumeric' });
      expect(sms.serviceCentreTime.toISOString()).to.equal('2011-01-11T13:25:41.000Z');
      expect(sms.text).to.equal('diafaan.com');
    });
  });

  describe('when PDUs captured from Russian networks (the test suite of smsf, an SMS forwarder) are read', () => {
    it('then a UCS-2 text reads as Cyrillic', () => {
      const sms = deliver(
        '07919712690080F8040B919712890064F900085220212193332124041F0440043E043204350440043A0430002004410432044F043704380020004D00490058',
      );
      expect(sms.alphabet).to.equal('ucs2');
      expect(sms.sender.value).to.equal('+79219800469');
      expect(sms.serviceCentreTime.toISOString()).to.equal('2025-02-12T09:39:33.000Z');
      expect(sms.text).to.equal('Проверка связи MIX');
    });

    it('then a part with the 16-bit reference element (08 04) gives its reference, total and sequence', () => {
      const sms = deliver(
        '07919736799499F8640DD0E272999D76971B000852207212329221370608045C250202002F006D0079006200650065002E0070006100670065002E006C0069006E006B002F0074006F007000750070000D000A',
      );
      expect(sms.sender).to.deep.equal({ value: 'beeline', type: 'alphanumeric' });
      expect(sms.concatenation).to.deep.equal({ reference: 0x5c25, referenceBits: 16, total: 2, sequence: 2 });
      expect(sms.text).to.equal('/mybee.page.link/topup\r\n');
    });

    it('then the first part of a two-part GSM-7 text reads from the septet after the header', () => {
      const sms = deliver(
        '07919712690080F8440B919712890064F9000052303041138521A0050003E10201986F79B90D4AC3E7F53688FC66BFE5A0799A0E0AB7CB741668FC76CFCB637A995E9783C2E4343C3D1FA7DD6750999DA6B340F33219447E83CAE9FABCFD2683E8E536FC2D07A5DDE334394DAEBBE9A03A1DC40E8BDFF232A84C0791DFECB7BC0C6A87CFEE3028CC4EC7EB6117A84A0795DDE936284C06B5D3EE741B642FBBD3E1360B14AFA7E7',
      );
      expect(sms.concatenation).to.deep.equal({ reference: 0xe1, referenceBits: 8, total: 2, sequence: 1 });
      expect(sms.text).to.equal(
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis',
      );
    });
  });

  describe('when the modem says the PDU carries no SMSC address (the length equals the whole PDU)', () => {
    it('then the first octet is read as the TPDU\'s own', () => {
      const tpdu = '040B917228214365F700003130805120618005D4F29C2E03';
      const sms = deliver(tpdu, tpdu.length / 2);
      expect(sms.smsc).to.equal(undefined);
      expect(sms.text).to.equal('Test2');
    });
  });

  describe('when the PDU is cut short or is not hex', () => {
    it('then a PduFormatError is thrown, never a half-read SMS', () => {
      expect(() => decodePdu('07917283010010F5040BC872388809')).to.throw(PduFormatError);
      expect(() => decodePdu('hello')).to.throw(PduFormatError);
      expect(() => decodePdu('')).to.throw(PduFormatError);
    });
  });
});
