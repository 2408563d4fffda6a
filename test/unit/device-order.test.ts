// Choosing a device for an SMS the client named no device for
// (src/modules/delivery/device-order.ts): fewest SMS in flight first, round robin among equals
// (docs/delivery.md, "Who is asked first").
import { expect } from 'chai';
import { chooseDevice, type Candidate } from '../../src/modules/delivery/device-order.ts';

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
