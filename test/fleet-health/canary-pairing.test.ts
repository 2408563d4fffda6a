// Who sends to whom, and what a canary says: in every round each SIM sends one canary and receives
// one, never from itself; over N-1 rounds each SIM has sent to every other; the text is short
// GSM-7 with a code the received-SMS check reads back, and nothing else reads as one.
import { expect } from 'chai';
import { partnersOf } from '../../src/modules/fleet-health/canary/pairing.ts';
import { CANARY_TEXT, canaryCodeIn, canaryText, newCanaryCode } from '../../src/modules/fleet-health/canary/code.ts';
import { countSegments } from '../../src/common/sms-segments.ts';

describe('fleet health: canary pairing and text', () => {
  for (const n of [2, 3, 4, 5, 7]) {
    it(`when ${n} SIMs take part, then each round is a set of one-to-one pairs, and after ${n - 1} rounds every SIM has sent to every other`, () => {
      const sims = Array.from({ length: n }, (_, i) => `sim${i}`);
      const reached = new Map(sims.map((sim) => [sim, new Set<string>()]));
      for (let round = 0; round < n - 1; round++) {
        const pairs = partnersOf(sims, round);
        expect(pairs.map(([sender]) => sender)).to.have.members(sims);
        expect(pairs.map(([, receiver]) => receiver)).to.have.members(sims);
        for (const [sender, receiver] of pairs) {
          expect(receiver).to.not.equal(sender);
          reached.get(sender)!.add(receiver);
        }
      }
      for (const [sender, receivers] of reached) expect(receivers.size, sender).to.equal(n - 1);
    });
  }

  it('when fewer than two SIMs take part, then there is no pair', () => {
    expect(partnersOf([], 0)).to.deep.equal([]);
    expect(partnersOf(['only'], 3)).to.deep.equal([]);
  });

  it('when a code is made, then it is 8 base32 characters, the text is one GSM-7 segment, and the check reads the code back', () => {
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = newCanaryCode();
      expect(code).to.match(/^[A-Z2-7]{8}$/);
      codes.add(code);
      const text = canaryText(code);
      expect(text).to.equal(`Gateway check ${code}`).and.match(CANARY_TEXT);
      expect(countSegments(text)).to.deep.include({ encoding: 'gsm7', segments: 1 });
      expect(canaryCodeIn(text)).to.equal(code);
      expect(canaryCodeIn(` ${text.toLowerCase().replace('gateway check', 'Gateway check')}\n`)).to.equal(code);
    }
    expect(codes.size).to.be.above(195);
  });

  for (const text of ['Gateway check', 'Gateway check ABCDEFG', 'Gateway check ABCDEFGHJ', 'Gateway check ABCD1234', 'Re: Gateway check ABCDEFGH', 'gateway check ABCDEFGH', 'Gateway check ABCDEFGH thanks']) {
    it(`when a received text reads ${JSON.stringify(text)}, then it is no canary`, () => {
      expect(canaryCodeIn(text)).to.equal(undefined);
    });
  }
});
