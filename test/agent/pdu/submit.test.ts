// SMS-SUBMIT encoding, compared octet for octet with PDUs other projects publish.
import { expect } from 'chai';
import { decodePdu, encodeSubmit, type DecodedSubmit } from '../../../agent/src/pdu/index.ts';

function submit(hex: string): DecodedSubmit {
  const decoded = decodePdu(hex);
  if (decoded.type !== 'submit') throw new Error(`expected a SUBMIT, got ${decoded.type}`);
  return decoded;
}

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.Ut enim ad minim veniam, quinostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.Duis aute irure dolor in reprehenderit in voluptate velit esse cillum doloe eu fugiat nulla pariatur.Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum';

describe('PDU codec: SMS-SUBMIT', () => {
  describe('when "hellohello" is encoded with a 4-day validity (the Wikipedia GSM 03.40 example)', () => {
    it('then the PDU matches the published one and its length leaves out the SMSC octet', () => {
      const { encoding, parts } = encodeSubmit({ phone: '+46708251358', text: 'hellohello', validityMinutes: 4 * 24 * 60 });
      expect(encoding).to.equal('gsm7');
      expect(parts).to.deep.equal([{ pdu: '0011000B916407281553F80000AA0AE8329BFD4697D9EC37', tpduLength: 23 }]);
      const decoded = submit(parts[0]!.pdu);
      expect(decoded.recipient.value).to.equal('+46708251358');
      expect(decoded.validityMinutes).to.equal(4 * 24 * 60);
      expect(decoded.text).to.equal('hellohello');
    });
  });

  describe('when the SUBMIT PDUs of python-gsmmodem\'s test suite are rebuilt', () => {
    it('then a GSM-7 text without validity matches', () => {
      const { parts } = encodeSubmit({ phone: '+27820001111', text: 'Hello World!' });
      expect(parts[0]!.pdu).to.equal('0001000B917228001011F100000CC8329BFD065DDF72363904');
    });

    it('then a UCS-2 text with an explicit service centre matches', () => {
      const { encoding, parts } = encodeSubmit({ phone: '+34616585119', text: 'あ叶葉', smsc: '+34646456456' });
      expect(encoding).to.equal('ucs2');
      expect(parts[0]!.pdu).to.equal('07914346466554F601000B914316565811F9000806304253F68449');
      expect(parts[0]!.tpduLength).to.equal(19);
      expect(submit(parts[0]!.pdu).text).to.equal('あ叶葉');
    });

    it('then a three-part text (reference 0, duplicates rejected) matches part for part, UDH 05 00 03 and fill bit included', () => {
      const { parts } = encodeSubmit({ phone: '+15125551234', text: LOREM, rejectDuplicates: true, concatReference: 0 });
      expect(parts.map((part) => part.pdu)).to.deep.equal([
        '0045000B915121551532F40000A0050003000301986F79B90D4AC3E7F53688FC66BFE5A0799A0E0AB7CB741668FC76CFCB637A995E9783C2E4343C3D4F8FD3EE33A8CC4ED359A079990C22BF41E5747DDE7E9341F4721BFE9683D2EE719A9C26D7DD74509D0E6287C56F791954A683C86FF65B5E06B5C36777181466A7E3F5B0AB4A0795DDE936284C06B5D3EE741B642FBBD3E1360B14AFA7DD',
        '0045000B915121551532F40000A0050003000302DE73BABC4E0695F165F9384D0FD3D36F37A8CE6687DBE337881D16BFE5E939C89D9EA741753A28CC4EC7EB6938A88C0795C3A0F1BBDD7E93DFA0F1DB3D2FC7EB61BA8B584FCF41E13ABD0C4ACBEBF23288FC66BFE5A0B41B242FC3E56574D94D2ECBD37450DA0DB2BFD975383D4C2F83EC65769A0E2ACFE765D038CD66D7DB20F29BFD2E83CA',
        '0045000B915121551532F400008C050003000303EA2073FD9C0ED341EE3A9B1D06C1C3F274985E97BB8AF871194E2FD7E5A079DA4D07BDC7E370791CA683C675789A1CA687E920F7DB0D82CBDF6972D94D6781E675371D947683C675363C0C8AD7D3A0B7D99C1EA7C32072795E96D7DD7450FBCD66A7E9A0B03BDD06A5C9A0F29C0E6287C56F79BD0D',
      ]);
      expect(parts.map((part) => part.tpduLength)).to.deep.equal(parts.map((part) => part.pdu.length / 2 - 1));
      expect(parts.map((part) => submit(part.pdu).text).join('')).to.equal(LOREM);
    });
  });

  describe('when the SUBMIT PDUs of smsf\'s test suite (5-minute validity) are rebuilt', () => {
    it('then the GSM-7 and the UCS-2 one match', () => {
      expect(encodeSubmit({ phone: '+79219800469', text: 'Test IoT', validityMinutes: 5 }).parts[0]!.pdu).to.equal(
        '0011000B919712890064F900000008D4F29C0E4ABEA9',
      );
      expect(encodeSubmit({ phone: '+79219800469', text: 'Проверка русского IoT', validityMinutes: 5 }).parts[0]!.pdu).to.equal(
        '0011000B919712890064F90008002A041F0440043E043204350440043A043000200440044304410441043A043E0433043E00200049006F0054',
      );
    });
  });

  describe('when a status report is asked for', () => {
    it('then TP-SRR (0x20) is set on every part and the decoder sees it', () => {
      const { parts } = encodeSubmit({ phone: '+491511234567', text: 'x'.repeat(200), statusReport: true, concatReference: 7 });
      expect(parts).to.have.length(2);
      for (const part of parts) {
        const firstOctet = parseInt(part.pdu.slice(2, 4), 16);
        expect(firstOctet & 0x20).to.equal(0x20);
        expect(firstOctet & 0x40).to.equal(0x40);
        expect(submit(part.pdu).statusReportRequested).to.equal(true);
      }
      expect(submit(parts[1]!.pdu).concatenation).to.deep.equal({ reference: 7, referenceBits: 8, total: 2, sequence: 2 });
    });
  });

  describe('when a UCS-2 text has an emoji on a part boundary', () => {
    it('then each part holds whole characters, at most 67 units, and the parts join to the text', () => {
      const text = `${'ж'.repeat(66)}🙂${'ж'.repeat(70)}`;
      const { encoding, parts } = encodeSubmit({ phone: '+491511234567', text, concatReference: 1 });
      expect(encoding).to.equal('ucs2');
      const texts = parts.map((part) => submit(part.pdu).text);
      expect(texts[0]).to.equal('ж'.repeat(66));
      expect(texts[1]!.startsWith('🙂')).to.equal(true);
      for (const part of texts) expect(part.length).to.be.at.most(67);
      expect(texts.join('')).to.equal(text);
      // 6 octets of header plus 2 per unit; the TPDU length counts it all.
      expect(parts[0]!.pdu.slice(-(6 + 66 * 2) * 2 - 2, -(6 + 66 * 2) * 2)).to.equal((6 + 66 * 2).toString(16).toUpperCase());
    });
  });
});
