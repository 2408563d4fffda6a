// broker/few-entries.ts: a few entries in an array answer as a Map does, and past the limit
// become a Map, in the same order.
import { expect } from 'chai';
import { deleteEntry, entriesOf, entryCount, getEntry, hasEntry, setEntry, type FewEntries } from '../../broker/few-entries.ts';

describe('unit: a map of a few entries kept in an array', () => {
  it('when keys are set, replaced and deleted at random, then every answer equals a Map\'s', () => {
    let state = 3;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
    let entries: FewEntries<number> | undefined;
    const reference = new Map<string, number>();
    let sawArray = false;
    let sawMap = false;
    for (let step = 0; step < 5_000; step++) {
      const key = keys[Math.floor(next() * keys.length)]!;
      if (next() < 0.35) expect(deleteEntry(entries, key)).to.equal(reference.delete(key));
      else {
        entries = setEntry(entries, key, step);
        reference.set(key, step);
      }
      if (entries instanceof Map) sawMap = true;
      else if (entries) sawArray = true;
      expect(entryCount(entries)).to.equal(reference.size);
      expect([...entriesOf(entries)]).to.deep.equal([...reference]);
      const probe = keys[Math.floor(next() * keys.length)]!;
      expect(getEntry(entries, probe)).to.equal(reference.get(probe));
      expect(hasEntry(entries, probe)).to.equal(reference.has(probe));
    }
    expect(sawArray && sawMap).to.equal(true);
  });

  it('when a ninth key comes, then the entries become a Map with the first eight in their order', () => {
    let entries: FewEntries<string> | undefined;
    for (let i = 0; i < 8; i++) entries = setEntry(entries, `k${i}`, `v${i}`);
    expect(Array.isArray(entries)).to.equal(true);
    expect(entries).to.have.length(16);
    entries = setEntry(entries, 'k8', 'v8');
    expect(entries).to.be.instanceOf(Map);
    expect([...entriesOf(entries)].map(([key]) => key)).to.deep.equal(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8']);
  });
});
