// Addresses and timestamps inside PDUs, against the field encodings of python-gsmmodem's tests.
import { expect } from 'chai';
import { bytesToHex, encodeAddress, encodeSmscAddress, hexToBytes } from '../../../agent/src/pdu/index.ts';
import { decodeAddress, decodeSmscAddress } from '../../../agent/src/pdu/address.ts';
import { OctetReader } from '../../../agent/src/pdu/octet-reader.ts';
import { decodeTimestamp, encodeTimestamp } from '../../../agent/src/pdu/timestamp.ts';
import { encodeRelativeValidity, relativeValidityMinutes } from '../../../agent/src/pdu/validity-period.ts';

const reader = (hex: string) => new OctetReader(hexToBytes(hex));

describe('PDU codec: addresses, timestamps, validity', () => {
  describe('when a phone address is decoded (python-gsmmodem test_pdu.py vectors)', () => {
    const vectors: [string, string, string][] = [
      ['0A918967452301', '+9876543210', 'international'],
      ['099189674523F1', '+987654321', 'international'],
      ['0B917228195339F4', '+27829135934', 'international'],
      ['0AA11092997856', '0129998765', 'national'],
      ['06D061F118', 'abc', 'alphanumeric'],
      ['0ED04669D0397C26A7', 'FRANCOIS', 'alphanumeric'],
      ['14D0E10D6FE3DBA036A94D19', 'a[]{}€', 'alphanumeric'],
    ];
    for (const [hex, value, type] of vectors) {
      it(`then ${hex} reads as ${type} "${value}"`, () => {
        expect(decodeAddress(reader(`${hex}0000`))).to.deep.equal({ value, type });
      });
    }
  });

  describe('when a phone address is encoded', () => {
    it('then an E.164 number is international (91), digits with an F filler', () => {
      expect(bytesToHex(encodeAddress('+9876543210'))).to.equal('0A918967452301');
      expect(bytesToHex(encodeAddress('+27829135934'))).to.equal('0B917228195339F4');
    });

    it('then the SMSC address counts octets, and none is 00 (the SIM\'s own)', () => {
      expect(bytesToHex(encodeSmscAddress('+9876543210'))).to.equal('06918967452301');
      expect(bytesToHex(encodeSmscAddress('+2782913593'))).to.equal('06917228195339');
      expect(bytesToHex(encodeSmscAddress(undefined))).to.equal('00');
      expect(decodeSmscAddress(reader('06917228195339'))).to.deep.equal({ value: '+2782913593', type: 'international' });
      expect(decodeSmscAddress(reader('00'))).to.equal(undefined);
    });

    it('then anything but digits is refused', () => {
      expect(() => encodeAddress('+49 151 x')).to.throw(/phone number/);
      expect(() => encodeAddress('')).to.throw(/phone number/);
    });
  });

  describe('when a service centre timestamp is decoded (python-gsmmodem vectors)', () => {
    const vectors: [string, string, number][] = [
      ['51117200000000', '2015-11-27T00:00:00.000Z', 0],
      ['51117200000080', '2015-11-26T22:00:00.000Z', 120],
      ['70402132522423', '2007-04-12T15:25:42.000Z', 480],
      ['7040213252242B', '2007-04-13T07:25:42.000Z', -480],
    ];
    for (const [hex, iso, offset] of vectors) {
      it(`then ${hex} is ${iso} with the zone ${offset} minutes east of UTC, and encodes back`, () => {
        const { date, offsetMinutes } = decodeTimestamp(reader(hex));
        expect(date.toISOString()).to.equal(iso);
        expect(offsetMinutes).to.equal(offset);
        expect(bytesToHex(encodeTimestamp(date, offsetMinutes))).to.equal(hex);
      });
    }

    it('then a month 13 is a format error, not a date', () => {
      expect(() => decodeTimestamp(reader('51317200000000'))).to.throw(/out of range/);
    });
  });

  describe('when a relative validity is chosen (python-gsmmodem vectors)', () => {
    const vectors: [number, number][] = [
      [30, 5],
      [16 * 60, 151],
      [3 * 24 * 60, 169],
      [5 * 7 * 24 * 60, 197],
    ];
    for (const [minutes, value] of vectors) {
      it(`then ${minutes} minutes is TP-VP ${value}`, () => {
        expect(encodeRelativeValidity(minutes)).to.equal(value);
        expect(relativeValidityMinutes(value)).to.equal(minutes);
      });
    }
  });
});
