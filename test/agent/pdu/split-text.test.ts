// Splitting a text into SMS parts. The gateway counts segments with these same rules (its own
// tests check the counts against fixed figures).
import { expect } from 'chai';
import { splitText, textUnits } from '../../../agent/src/pdu/index.ts';

describe('PDU codec: splitting a text into parts', () => {
  describe('when a GSM-7 text fits one SMS', () => {
    it('then 160 septets are one part, the empty text one empty part', () => {
      expect(splitText('a'.repeat(160))).to.deep.equal({ encoding: 'gsm7', parts: ['a'.repeat(160)] });
      expect(splitText('')).to.deep.equal({ encoding: 'gsm7', parts: [''] });
    });
  });

  describe('when a GSM-7 text is longer than one SMS', () => {
    it('then it is cut into parts of 153 septets', () => {
      const { encoding, parts } = splitText('b'.repeat(161));
      expect(encoding).to.equal('gsm7');
      expect(parts.map((part) => part.length)).to.deep.equal([153, 8]);
    });

    it('then an extension character that would straddle a boundary moves whole to the next part', () => {
      const text = `${'c'.repeat(152)}€${'d'.repeat(10)}`;
      const { parts } = splitText(text);
      expect(parts[0]).to.equal('c'.repeat(152));
      expect(parts[1]!.startsWith('€')).to.equal(true);
      expect(parts.join('')).to.equal(text);
    });
  });

  describe('when a character has no GSM-7 form', () => {
    it('then the whole text is UCS-2: 70 units in one part, else parts of 67', () => {
      expect(splitText('é世'.repeat(35)).parts).to.have.length(1);
      const { encoding, parts } = splitText('世'.repeat(71));
      expect(encoding).to.equal('ucs2');
      expect(parts.map((part) => part.length)).to.deep.equal([67, 4]);
    });

    it('then a surrogate pair at a boundary is never split', () => {
      const text = `${'x'.repeat(66)}🙂${'y'.repeat(10)}`;
      const { parts } = splitText(text);
      expect(parts[0]).to.equal('x'.repeat(66));
      expect(parts[1]!.startsWith('🙂')).to.equal(true);
      expect(parts.join('')).to.equal(text);
    });
  });
});
