// Counting characters as a person counts them: the message limit is in characters, not bytes,
// for any alphabet, and a character is a grapheme cluster.
import { expect } from 'chai';
import { countCharacters, exceedsCharacters } from '../../src/common/characters.ts';

describe('countCharacters', () => {
  const cases: [string, string, number][] = [
    ['the empty string', '', 0],
    ['Latin letters', 'Hello', 5],
    ['Cyrillic letters', 'Привет', 6],
    ['an emoji with a skin tone', '👍🏽', 1],
    ['a flag', '🇷🇺', 1],
    ['a family joined by zero-width joiners', '👨‍👩‍👧‍👦', 1],
    ['a letter with a combining accent', 'e\u0301', 1],
    ['a CJK ideograph outside the BMP', '𠀋', 1],
    ['a Hangul syllable written as jamo', '\u1112\u1161\u11ab', 1],
    ['mixed text', 'Hi 👋🏻 мир!', 9],
    ['a CR LF line break', 'a\r\nb', 3],
  ];
  for (const [name, text, count] of cases) {
    it(`when the text is ${name}, then it counts ${count}`, () => {
      expect(countCharacters(text)).to.equal(count);
    });
  }

  it('when stopAfter is given, then it stops counting once past it', () => {
    expect(countCharacters('a'.repeat(1000), 5)).to.equal(6);
    expect(countCharacters('abc', 5)).to.equal(3);
    expect(countCharacters('👍🏽'.repeat(10), 3)).to.equal(4);
  });
});

describe('exceedsCharacters', () => {
  const cases: [string, string, number, boolean][] = [
    ['170 Latin letters', 'a'.repeat(170), 170, false],
    ['171 Latin letters', 'a'.repeat(171), 170, true],
    ['170 Cyrillic letters', 'ж'.repeat(170), 170, false],
    ['171 Cyrillic letters', 'ж'.repeat(171), 170, true],
    ['170 emoji with a skin tone (340 code points)', '👍🏽'.repeat(170), 170, false],
    ['171 emoji with a skin tone', '👍🏽'.repeat(171), 170, true],
    ['170 flags', '🇷🇺'.repeat(170), 170, false],
    ['171 flags', '🇷🇺'.repeat(171), 170, true],
    ['170 accented letters (e + combining accent)', 'e\u0301'.repeat(170), 170, false],
    ['169 letters and one family emoji', 'a'.repeat(169) + '👨‍👩‍👧‍👦', 170, false],
    ['100 emoji at a limit of 100', '👍🏽'.repeat(100), 100, false],
    ['the empty string at a limit of 0', '', 0, false],
    ['one letter at a limit of 0', 'a', 0, true],
    ['170 subdivision flags (14 units each)', '🏴󠁧󠁢󠁥󠁮󠁧󠁿'.repeat(170), 170, false],
    // One grapheme cluster, and 32,001 units: hundreds of SMS parts, more than a concatenated SMS can number.
    ['one letter with 32,000 combining accents', 'a' + '\u0301'.repeat(32_000), 170, true],
    ['169 letters and one with 4,000 combining accents (past 24 units a character)', 'a'.repeat(169) + 'e' + '\u0301'.repeat(4_000), 170, true],
  ];
  for (const [name, text, limit, exceeds] of cases) {
    it(`when the text is ${name}, then it ${exceeds ? 'exceeds' : 'does not exceed'} ${limit}`, () => {
      expect(exceedsCharacters(text, limit)).to.equal(exceeds);
    });
  }
});
