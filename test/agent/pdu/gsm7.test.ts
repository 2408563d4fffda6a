// GSM-7 alphabet and septet packing, checked against packings other projects publish.
import { expect } from 'chai';
import {
  GSM7_BASIC_TABLE,
  GSM7_EXTENSION_TABLE,
  bytesToHex,
  decodeGsm7,
  encodeGsm7,
  hexToBytes,
  packSeptets,
  unpackSeptets,
} from '../../../agent/src/pdu/index.ts';

function pack(text: string): string {
  return bytesToHex(packSeptets(encodeGsm7(text)!));
}

function unpack(hex: string, septets: number): string {
  return decodeGsm7(unpackSeptets(hexToBytes(hex), septets));
}

describe('PDU codec: GSM-7 alphabet and septet packing', () => {
  describe('when the alphabet tables are read', () => {
    it('then the basic table has 128 characters in table order and the extension table the ten ESC characters', () => {
      expect(GSM7_BASIC_TABLE).to.have.length(128);
      expect(GSM7_BASIC_TABLE[0x00]).to.equal('@');
      expect(GSM7_BASIC_TABLE[0x02]).to.equal('$');
      expect(GSM7_BASIC_TABLE[0x11]).to.equal('_');
      expect(GSM7_BASIC_TABLE[0x24]).to.equal('¤');
      expect(GSM7_BASIC_TABLE[0x40]).to.equal('¡');
      expect(GSM7_BASIC_TABLE[0x7f]).to.equal('à');
      expect([...GSM7_EXTENSION_TABLE.keys()].sort()).to.deep.equal([...'\f^{}\\[~]|€'].sort());
      expect(GSM7_EXTENSION_TABLE.get('€')).to.equal(0x65);
    });
  });

  describe('when texts are packed (vectors of python-gsmmodem\'s test suite and the Wikipedia GSM 03.38 article)', () => {
    const vectors: [string, string][] = [
      // python-gsmmodem, test_pdu.py: plain digits, 8 septets filling 7 octets exactly, and a greeting.
      ['123', '31D90C'],
      ['12345678', '31D98C56B3DD70'],
      ['Hello World!', 'C8329BFD065DDF72363904'],
      // python-gsmmodem: extension characters take an ESC septet each.
      ['[{abc}]~', '1BDE0615168F37A98D6FD303'],
      ['{åΦΓΛΩΠΨΣΘ€}', '1BD44332A1542C174C6653DEA400'],
      // The "hellohello" of the Wikipedia article and of countless PDU tutorials.
      ['hellohello', 'E8329BFD4697D9EC37'],
    ];
    for (const [text, packed] of vectors) {
      it(`then "${text}" packs to ${packed} and unpacks back`, () => {
        expect(pack(text)).to.equal(packed);
        expect(unpack(packed, encodeGsm7(text)!.length)).to.equal(text);
      });
    }
  });

  describe('when septets follow a user data header', () => {
    it('then the fill bits come first and the text reads back after them', () => {
      const septets = encodeGsm7('hello')!;
      const packed = packSeptets(septets, 1);
      expect(unpackSeptets(packed, septets.length, 1)).to.deep.equal(septets);
      expect(packed[0]! & 1).to.equal(0);
    });
  });

  describe('when a character has no GSM-7 form', () => {
    it('then the text cannot be encoded in GSM-7', () => {
      expect(encodeGsm7('hello 世界')).to.equal(undefined);
      expect(encodeGsm7('emoji 🙂')).to.equal(undefined);
    });
  });
});
