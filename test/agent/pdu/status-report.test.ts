// Status reports (SMS-STATUS-REPORT): what a +CDS carries, from published examples.
import { expect } from 'chai';
import { decodePdu, deliveryStatus, type DecodedStatusReport } from '../../../agent/src/pdu/index.ts';

function report(hex: string, tpduLength?: number): DecodedStatusReport {
  const decoded = decodePdu(hex, tpduLength);
  if (decoded.type !== 'status-report') throw new Error(`expected a STATUS-REPORT, got ${decoded.type}`);
  return decoded;
}

// Published by Diafaan and reused in the tests of python-gsmmodem, gammu and others.
const DIAFAAN_REPORT = '0006D60B911326880736F4111011719551401110117195714000';

describe('PDU codec: status reports', () => {
  describe('when the widely reused Diafaan report is read', () => {
    it('then reference 214, the recipient, both times (+1 h zone) and "delivered" come out', () => {
      const decoded = report(DIAFAAN_REPORT);
      expect(decoded.smsc).to.equal(undefined);
      expect(decoded.messageReference).to.equal(214);
      expect(decoded.recipient.value).to.equal('+31628870634');
      expect(decoded.serviceCentreTime.toISOString()).to.equal('2011-01-11T16:59:15.000Z');
      expect(decoded.dischargeTime.toISOString()).to.equal('2011-01-11T16:59:17.000Z');
      expect(decoded.status).to.equal(0);
      expect(decoded.outcome).to.equal('delivered');
    });

    it('then the same report with the centre\'s address in front (HeboTech ATLib\'s variant) reads the same', () => {
      const decoded = report('07911326040000F006D60B911326880736F4111011719551401110117195714000');
      expect(decoded.smsc).to.equal('+31624000000');
      expect(decoded.messageReference).to.equal(214);
    });

    it('then the same report with TP-ST 0x46 is undelivered: validity period expired', () => {
      const decoded = report(`${DIAFAAN_REPORT.slice(0, -2)}46`);
      expect(decoded.outcome).to.equal('undelivered');
      expect(decoded.reason).to.equal('validity period expired');
    });
  });

  describe('when the +CDS line of the "receiving an SMS status report" blog post (amro, 2007) is read', () => {
    it('then, told the PDU has no SMSC address (25 octets), reference 0 and the recipient come out', () => {
      const hex = '06000B910221815716F2709021510121807090215101718000';
      const decoded = report(hex, 25);
      expect(decoded.messageReference).to.equal(0);
      expect(decoded.recipient.value).to.equal('+20121875612');
      expect(decoded.serviceCentreTime.toISOString()).to.equal('2007-09-12T13:10:12.000Z');
      expect(decoded.dischargeTime.toISOString()).to.equal('2007-09-12T13:10:17.000Z');
      expect(decoded.outcome).to.equal('delivered');
    });
  });

  describe('when TP-ST values are mapped', () => {
    const cases: [number, string, RegExp][] = [
      [0x00, 'delivered', /received/],
      [0x01, 'delivered', /not confirmed/],
      [0x21, 'pending', /recipient busy \(still trying\)/],
      [0x30, 'pending', /still trying/],
      [0x41, 'undelivered', /incompatible destination/],
      [0x46, 'undelivered', /validity period expired/],
      [0x62, 'undelivered', /no response from the recipient, no more attempts/],
      [0xa0, 'undelivered', /unknown status 0xa0/],
    ];
    for (const [status, outcome, reason] of cases) {
      it(`then 0x${status.toString(16).padStart(2, '0')} is ${outcome}`, () => {
        const mapped = deliveryStatus(status);
        expect(mapped.outcome).to.equal(outcome);
        expect(mapped.reason).to.match(reason);
      });
    }
  });
});
