// Spaces and punctuation around a keyword count as the keyword: "STOP.", "Stop!", "stop!!" and
// "  STOP  " opt out as STOP does, "Start!" opts back in; a keyword inside a sentence is no keyword.
import { expect } from 'chai';
import { foldKeyword, matchKeyword } from '../../src/modules/opt-out/keywords.ts';
import { useGateway } from '../support/use-gateway.ts';
import { receive, receivingPhone, suppressed } from './support.ts';

describe('opt-out: punctuation around a keyword', () => {
  describe('when a text is a keyword with spaces or punctuation around it', () => {
    it('then it is that keyword, in every kind and in the account\'s own words, and a keyword inside a sentence is none', () => {
      for (const text of ['STOP.', 'Stop!', 'stop!!', '  STOP  ', '"STOP"', 'STOP :)', '...stop...', '¡Alto!', 'ＳＴＯＰ！', 'Unsubscribe.', 'СТОП!', 'Arrêt.']) {
        expect(matchKeyword(text)?.kind, text).to.equal('stop');
      }
      for (const text of ['Start!', 'UNSTOP.', 'start?']) expect(matchKeyword(text)?.kind, text).to.equal('start');
      for (const text of ['Help?', 'HELP!!!', '(help)']) expect(matchKeyword(text)?.kind, text).to.equal('help');
      expect(matchKeyword('Genug!', ['genug'])?.kind).to.equal('stop');
      expect(matchKeyword('genug', ['GENUG!'])?.kind).to.equal('stop');
      // The records keep what was received.
      expect(matchKeyword('  Stop! ')?.keyword).to.equal('Stop!');

      for (const text of ['please stop sending', 'Please stop.', 'STOP it!', 'stop, please', 'S.T.O.P', 'stop-stop', '!!!', '. .', 'STOP 🙏']) {
        expect(matchKeyword(text), text).to.equal(undefined);
      }
      // Inbound rules fold whole texts: a long one full of marks is read in one pass.
      const started = process.hrtime.bigint();
      expect(foldKeyword(`x${'! '.repeat(20_000)}x`)).to.have.length(40_002);
      expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.below(200);
    });
  });

  describe('when a phone reports such texts received', () => {
    const fx = useGateway();

    it('then "STOP.", "Stop!", "stop!!" and "  STOP  " list their senders, "Start!" takes one off, and a sentence lists no one', async () => {
      const phone = await receivingPhone(fx);
      const words = ['STOP.', 'Stop!', 'stop!!', '  STOP  ', '¡Alto!'];
      const senders = words.map((_, index) => `+7916123460${index}`);
      for (const [index, word] of words.entries()) await receive(phone, senders[index]!, word);
      await receive(phone, '+79161234699', 'please stop sending.');
      expect(await suppressed(fx.tenant)).to.deep.equal([...senders].sort());
      const listed = (await fx.tenant.api.get('/suppressions?limit=100')).body.data as { phone: string; keyword: string }[];
      expect(listed.find((row) => row.phone === senders[1])).to.deep.include({ source: 'keyword', keyword: 'Stop!' });

      await receive(phone, senders[0]!, 'Start!');
      expect(await suppressed(fx.tenant)).to.deep.equal(senders.slice(1).sort());
      // The sentence is an ordinary received SMS.
      const incoming = (await fx.tenant.api.get('/incoming?limit=100')).body.data as { phone: string; message: string }[];
      expect(incoming.find((sms) => sms.phone === '+79161234699')).to.deep.include({ message: 'please stop sending.' });
    });
  });
});
