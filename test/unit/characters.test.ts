// Counting characters as a person counts them (spec 4.1: "counted in characters not bytes, for
// any alphabet"; issue 2: grapheme clusters) and choosing a device for an SMS the client named
// no device for (spec 4.1 rule 5; issue 2: "fewest SMS in flight first, round robin among equals").
import { expect } from 'chai';
import { countCharacters, exceedsCharacters } from '../../src/common/characters.ts';
import { chooseDevice, type Candidate } from '../../src/modules/delivery/device-order.ts';

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
  ];
  for (const [name, text, limit, exceeds] of cases) {
    it(`when the text is ${name}, then it ${exceeds ? 'exceeds' : 'does not exceed'} ${limit}`, () => {
      expect(exceedsCharacters(text, limit)).to.equal(exceeds);
    });
  }
});

describe('chooseDevice', () => {
  const c = (id: string, in_flight: number): Candidate => ({ id, in_flight });

  it('when there is no candidate, then it chooses none', () => {
    expect(chooseDevice([], undefined)).to.equal(undefined);
    expect(chooseDevice([], 'a')).to.equal(undefined);
  });

  it('when there is one candidate, then it is chosen, however busy, whatever came before', () => {
    expect(chooseDevice([c('a', 9)], undefined)).to.equal('a');
    expect(chooseDevice([c('a', 9)], 'a')).to.equal('a');
    expect(chooseDevice([c('a', 9)], 'z')).to.equal('a');
  });

  it('when candidates differ in load, then the least busy is chosen', () => {
    expect(chooseDevice([c('a', 3), c('b', 1), c('c', 2)], undefined)).to.equal('b');
    expect(chooseDevice([c('a', 3), c('b', 1), c('c', 2)], 'b')).to.equal('b');
    expect(chooseDevice([c('a', 0), c('b', 1)], 'a')).to.equal('a');
  });

  it('when candidates are equally busy, then they take turns (round robin)', () => {
    const candidates = [c('c', 2), c('a', 2), c('b', 2)];
    const chosen: (string | undefined)[] = [];
    let previous: string | undefined;
    for (let i = 0; i < 7; i++) {
      previous = chooseDevice(candidates, previous);
      chosen.push(previous);
    }
    // Each of the three once per round, in a stable order, whatever order the candidates come in.
    expect(new Set(chosen.slice(0, 3))).to.deep.equal(new Set(['a', 'b', 'c']));
    expect(chosen.slice(3, 6)).to.deep.equal(chosen.slice(0, 3));
    expect(chosen[6]).to.equal(chosen[0]);
  });

  it('when only some candidates are least busy, then the turns go round those only', () => {
    const candidates = [c('a', 1), c('b', 0), c('c', 5), c('d', 0)];
    const first = chooseDevice(candidates, undefined);
    const second = chooseDevice(candidates, first);
    const third = chooseDevice(candidates, second);
    expect(new Set([first, second])).to.deep.equal(new Set(['b', 'd']));
    expect(third).to.equal(first);
  });

  it('when the previous choice is no longer a candidate, then the turn still moves on', () => {
    const candidates = [c('a', 0), c('c', 0)];
    const next = chooseDevice(candidates, 'b');
    expect(next).to.be.oneOf(['a', 'c']);
    // Whichever it is, the following turn goes to the other one.
    expect(chooseDevice(candidates, next)).to.equal(next === 'a' ? 'c' : 'a');
  });

  it('when called with the same input, then it gives the same answer (no hidden state)', () => {
    const candidates = [c('x', 1), c('y', 1)];
    expect(chooseDevice(candidates, 'x')).to.equal(chooseDevice(candidates, 'x'));
    expect(chooseDevice(candidates, 'x')).to.equal('y');
    expect(chooseDevice(candidates, 'y')).to.equal('x');
  });
});
