// Counting the SMS a text is sent as, the way Android phones split it: GSM 7-bit while every
// character is in GSM 03.38, UCS-2 otherwise, and never splitting an escape or surrogate pair.
import { expect } from 'chai';
import { countSegments, type SegmentCount } from '../../src/common/sms-segments.ts';

const gsm7 = (units: number, segments: number): SegmentCount => ({ encoding: 'gsm7', units, segments });
const ucs2 = (units: number, segments: number): SegmentCount => ({ encoding: 'ucs2', units, segments });

const BASIC_TABLE =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION_TABLE = '\f^{}\\[~]|€';

describe('countSegments', () => {
  it('when the text is empty, then it is one empty gsm7 part', () => {
    expect(countSegments('')).to.deep.equal(gsm7(0, 1));
  });

  describe('gsm7', () => {
    const cases: [string, string, SegmentCount][] = [
      ['160 GSM characters', 'a'.repeat(160), gsm7(160, 1)],
      ['161 GSM characters', 'a'.repeat(161), gsm7(161, 2)],
      ['306 GSM characters', 'a'.repeat(306), gsm7(306, 2)],
      ['307 GSM characters', 'a'.repeat(307), gsm7(307, 3)],
      ['80 euro signs (160 septets)', '€'.repeat(80), gsm7(160, 1)],
      ['81 euro signs (162 septets)', '€'.repeat(81), gsm7(162, 2)],
      ['"Hello {world}" (braces cost two septets each)', 'Hello {world}', gsm7(15, 1)],
    ];
    for (const [name, text, count] of cases) {
      it(`when the text is ${name}, then it is ${count.segments} segment(s) of ${count.units} septets`, () => {
        expect(countSegments(text)).to.deep.equal(count);
      });
    }

    it('when the text is the whole basic table, then each of its 127 characters costs one septet', () => {
      expect(BASIC_TABLE.length).to.equal(127);
      expect(countSegments(BASIC_TABLE)).to.deep.equal(gsm7(127, 1));
      for (const char of BASIC_TABLE) expect(countSegments(char), JSON.stringify(char)).to.deep.equal(gsm7(1, 1));
    });

    it('when the text is an extension character, then it costs two septets (escape + character)', () => {
      for (const char of EXTENSION_TABLE) expect(countSegments(char), JSON.stringify(char)).to.deep.equal(gsm7(2, 1));
    });

    it('when an escape pair would start on the last septet of a part, then the pair moves to the next part', () => {
      // Part 1: 152 'a' (the escape would be septet 153, so '€' moves); part 2: '€' + 10 'a'.
      expect(countSegments('a'.repeat(152) + '€' + 'a'.repeat(10))).to.deep.equal(gsm7(164, 2));
    });

    it('when moved escape pairs leave parts a septet short, then packing needs more parts than division', () => {
      // 306 septets: ceil(306 / 153) = 2, but part 1 holds 152 'a', part 2 holds 76 '€' (152
      // septets) and the 77th '€' needs a third part.
      expect(countSegments('a'.repeat(152) + '€'.repeat(77))).to.deep.equal(gsm7(306, 3));
      // Shift the 'a' by one and every part fills exactly: 153 'a', then 76 '€'.
      expect(countSegments('a'.repeat(153) + '€'.repeat(76))).to.deep.equal(gsm7(305, 2));
    });
  });

  describe('ucs2', () => {
    const cases: [string, string, SegmentCount][] = [
      ['70 Cyrillic letters', 'ж'.repeat(70), ucs2(70, 1)],
      ['71 Cyrillic letters', 'ж'.repeat(71), ucs2(71, 2)],
      ['134 Cyrillic letters', 'ж'.repeat(134), ucs2(134, 2)],
      ['135 Cyrillic letters', 'ж'.repeat(135), ucs2(135, 3)],
      ['35 emoji (70 units)', '😀'.repeat(35), ucs2(70, 1)],
      // 33 emoji fill 66 units of part 1; the 34th would straddle the boundary, so it moves.
      ['36 emoji (72 units)', '😀'.repeat(36), ucs2(72, 2)],
      ['34 Cyrillic letters and an emoji', 'ж'.repeat(34) + '😀', ucs2(36, 1)],
      ['GSM text with an emoji', 'hi 😀', ucs2(5, 1)],
    ];
    for (const [name, text, count] of cases) {
      it(`when the text is ${name}, then it is ${count.segments} segment(s) of ${count.units} units`, () => {
        expect(countSegments(text)).to.deep.equal(count);
      });
    }

    it('when a surrogate pair would straddle a 67-unit boundary, then it moves to the next part', () => {
      // Part 1: 66 'ж'; part 2: '😀' + 65 'ж' (67 units); part 3: the rest.
      expect(countSegments('ж'.repeat(66) + '😀' + 'ж'.repeat(67))).to.deep.equal(ucs2(135, 3));
      // 134 units: ceil(134 / 67) = 2, but the moved pair leaves part 1 a unit short, so 3.
      expect(countSegments('ж'.repeat(66) + '😀' + 'ж'.repeat(66))).to.deep.equal(ucs2(134, 3));
    });

    const outsideGsm: [string, string][] = [
      ['a lower-case c-cedilla (only the capital Ç is GSM)', 'ç'],
      ['a Cyrillic ё', 'ё'],
      ['an a with an acute accent', 'á'],
      ['a backtick', '`'],
      ['a tab', '\t'],
      ['a bare ESC, which is no user character', '\x1b'],
    ];
    for (const [name, char] of outsideGsm) {
      it(`when GSM text holds ${name}, then the whole text is ucs2`, () => {
        expect(countSegments('a'.repeat(100) + char)).to.deep.equal(ucs2(101, 2));
        expect(countSegments(char)).to.deep.equal(ucs2(1, 1));
      });
    }

    it('when a non-GSM character comes after extension characters, then they count one unit each', () => {
      expect(countSegments('€{}ç')).to.deep.equal(ucs2(4, 1));
    });
  });
});
