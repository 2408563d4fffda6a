// Which received texts are opt-out keywords (the whole text, case and accents folded), and the
// time-limited regular-expression matcher of inbound rules.
import { expect } from 'chai';
import { matchKeyword } from '../../src/modules/opt-out/keywords.ts';
import { SafeRegex } from '../../src/modules/inbound-rules/safe-regex.ts';

describe('opt-out keywords', () => {
  it('reads the whole text as one keyword, whatever its case, accents or surrounding spaces', () => {
    for (const text of ['STOP', 'stop', '  Stop\n', 'StopAll', 'UNSUBSCRIBE', 'cancel', 'End', 'QUIT', 'СТОП', 'стоп', 'Arrêt', 'ARRET', 'arret']) {
      expect(matchKeyword(text)?.kind, text).to.equal('stop');
    }
    expect(matchKeyword(' Stop ')?.keyword).to.equal('Stop');
    for (const text of ['START', 'unstop', 'Старт']) expect(matchKeyword(text)?.kind, text).to.equal('start');
    for (const text of ['HELP', 'help', 'Помощь']) expect(matchKeyword(text)?.kind, text).to.equal('help');
  });

  it('is no keyword inside a sentence, empty, or very long', () => {
    for (const text of ['please stop', 'STOP it', 'stopp', '', '   ', 'STOP'.repeat(100)]) expect(matchKeyword(text), text).to.equal(undefined);
  });

  it('takes the account\'s own stop words, folded the same way', () => {
    expect(matchKeyword('Genug', ['GENUG'])?.kind).to.equal('stop');
    expect(matchKeyword('Ça suffit', ['ca suffit'])?.kind).to.equal('stop');
    expect(matchKeyword('Genug')).to.equal(undefined);
  });
});

describe('inbound rules: the time-limited matcher', () => {
  // A limit far above what these patterns need, so that a loaded machine cannot turn a match
  // into a timeout; the catastrophic pattern runs out of it all the same.
  const regex = new SafeRegex(500);

  it('matches case-insensitively and with Unicode', () => {
    expect(regex.test('order\\s+#?\\d+', 'Where is ORDER #42?')).to.equal('match');
    expect(regex.test('^привет', 'Привет, мир')).to.equal('match');
    expect(regex.test('^hello$', 'hello there')).to.equal('no_match');
  });

  it('gives up on a catastrophic pattern within its limit, and works again right after', () => {
    const started = Date.now();
    expect(regex.test('^(a+)+$', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')).to.equal('timeout');
    expect(Date.now() - started).to.be.below(5_000);
    expect(regex.test('a+', 'aaa')).to.equal('match');
  });

  it('says what is wrong with a pattern that is not one', () => {
    expect(SafeRegex.problemOf('(unclosed')).to.match(/not a valid regular expression/);
    expect(SafeRegex.problemOf('x'.repeat(501))).to.match(/at most 500/);
    expect(SafeRegex.problemOf('^ok$')).to.equal(undefined);
  });
});
