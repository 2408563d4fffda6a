// Sending through the modem: one AT+CMGS per part, references for delivery reports, errors as the
// modem gave them.
import { expect } from 'chai';
import type { OutgoingSms } from '../../../agent/src/radio/radio.ts';
import { useModem } from '../support/modem-fixture.ts';

function sms(message: string, extra: Partial<OutgoingSms> = {}): OutgoingSms {
  return { smsId: 'sms-1', phone: '+491511234567', message, simSlot: undefined, statusReport: true, ...extra };
}

describe('modem radio: sending', () => {
  const modem = useModem();

  describe('when a short GSM-7 SMS is sent with a status report asked', () => {
    it('then one SUBMIT goes out with TP-SRR, its length argument is the TPDU without the SMSC octet, and its reference comes back', async () => {
      const { radio, standin } = await modem.start();
      const result = await radio.send(sms('Hello from the gateway {ok}'));
      expect(standin.submits).to.have.length(1);
      const [submit] = standin.submits;
      expect(result).to.deep.equal({ ok: true, simSlot: 0, references: [submit!.reference] });
      expect(submit!.decoded.text).to.equal('Hello from the gateway {ok}');
      expect(submit!.decoded.recipient.value).to.equal('+491511234567');
      expect(submit!.decoded.statusReportRequested).to.equal(true);
      expect(submit!.decoded.alphabet).to.equal('gsm7');
      expect(submit!.lengthArgument).to.equal(submit!.pdu.length / 2 - 1);
    });

    it('then without a status report asked, TP-SRR is clear and no reference is promised', async () => {
      const { radio, standin } = await modem.start();
      expect(await radio.send(sms('no report please', { statusReport: false }))).to.deep.equal({ ok: true, simSlot: 0 });
      expect(standin.submits[0]!.decoded.statusReportRequested).to.equal(false);
    });
  });

  describe('when a 400-character GSM-7 SMS is sent', () => {
    it('then three parts go out with one concatenation reference, sequence 1-3, correct lengths, and join to the text', async () => {
      const { radio, standin } = await modem.start();
      const text = Array.from({ length: 50 }, (_, index) => `line ${String(index).padStart(3, '0')}`).join('');
      expect(text).to.have.length(400);
      const result = await radio.send(sms(text));
      expect(standin.submits).to.have.length(3);
      const concatenations = standin.submits.map((submit) => submit.decoded.concatenation);
      const reference = concatenations[0]!.reference;
      expect(concatenations).to.deep.equal([1, 2, 3].map((sequence) => ({ reference, referenceBits: 8, total: 3, sequence })));
      for (const submit of standin.submits) expect(submit.lengthArgument).to.equal(submit.pdu.length / 2 - 1);
      expect(standin.submits.map((submit) => submit.decoded.text.length)).to.deep.equal([153, 153, 94]);
      expect(standin.submits.map((submit) => submit.decoded.text).join('')).to.equal(text);
      expect(result).to.deep.equal({ ok: true, simSlot: 0, references: standin.submits.map((submit) => submit.reference) });
    });

    it('then the next long SMS gets another concatenation reference', async () => {
      const { radio, standin } = await modem.start();
      await radio.send(sms('a'.repeat(200)));
      await radio.send(sms('b'.repeat(200)));
      const references = standin.submits.map((submit) => submit.decoded.concatenation!.reference);
      expect(references[0]).to.equal(references[1]);
      expect(references[2]).to.not.equal(references[0]);
    });
  });

  describe('when a Unicode SMS has an emoji across a part boundary', () => {
    it('then it goes out as UCS-2 and the emoji\'s surrogate pair stays whole in the second part', async () => {
      const { radio, standin } = await modem.start();
      const text = `${'д'.repeat(66)}🙂${'д'.repeat(20)}`;
      expect((await radio.send(sms(text))).ok).to.equal(true);
      const texts = standin.submits.map((submit) => submit.decoded.text);
      expect(standin.submits.map((submit) => submit.decoded.alphabet)).to.deep.equal(['ucs2', 'ucs2']);
      expect(texts[0]).to.equal('д'.repeat(66));
      expect(texts[1]!.startsWith('🙂')).to.equal(true);
      expect(texts.join('')).to.equal(text);
    });
  });

  describe('when the modem refuses the part with +CMS ERROR', () => {
    it('then the send fails with the code and its meaning, never the text', async () => {
      const { radio, standin } = await modem.start();
      standin.failSend(38);
      const result = await radio.send(sms('secret words'));
      expect(result).to.deep.equal({ ok: false, error: '+CMS ERROR 38: network out of order', errorCode: 'network_failure', simSlot: 0 });
    });

    it('then a refusal of part 2 of 3 fails the send, says part 1 went out, and part 3 is never tried', async () => {
      const { radio, standin } = await modem.start();
      standin.failSend(42, 1);
      const result = await radio.send(sms('z'.repeat(400)));
      // Part 1 went out: a retry would send it twice, so the failure is final whatever the network said.
      expect(result).to.deep.equal({ ok: false, error: '+CMS ERROR 42: congestion (part 2 of 3; part 1 went out)', errorCode: 'partly_sent', simSlot: 0 });
      expect(standin.submits).to.have.length(1);
      expect(standin.commands.filter((command) => command.startsWith('AT+CMGS='))).to.have.length(2);
    });
  });

  describe('when the recipient is not a phone number', () => {
    it('then the send fails before anything reaches the modem', async () => {
      const { radio, standin } = await modem.start();
      const result = await radio.send(sms('hi', { phone: 'not-a-number' }));
      expect(result.ok).to.equal(false);
      expect(standin.commands.some((command) => command.startsWith('AT+CMGS'))).to.equal(false);
    });
  });
});
