// Keys asked at about the same time share one read; those asked while a read runs go in the next;
// no read takes more keys than its bound; a failed read fails each of its keys, and only those.
import { expect } from 'chai';
import { GatheredReads } from '../../src/common/gathered-reads.ts';

describe('gathered reads', () => {
  /** A read that answers each key doubled, records what it was asked, and waits for `hold` when set. */
  function reader(options: { maxKeys?: number; fail?: (keys: number[]) => boolean; busyWithinMs?: number } = {}) {
    const asked: number[][] = [];
    let release: (() => void) | undefined;
    let hold: Promise<void> | undefined;
    const reads = new GatheredReads<number, number>(
      async (keys) => {
        asked.push(keys);
        if (hold) await hold;
        if (options.fail?.(keys)) throw new Error('read failed');
        return new Map(keys.map((key) => [key, key * 2]));
      },
      { maxKeys: options.maxKeys ?? 100, gatherMs: 20, busyWithinMs: options.busyWithinMs ?? 0 },
    );
    return {
      reads,
      asked,
      holdNext: () => (hold = new Promise<void>((resolve) => (release = resolve))),
      release: () => {
        hold = undefined;
        release?.();
      },
    };
  }

  it('reads the keys asked in one turn together, each answered its own value', async () => {
    const { reads, asked } = reader();
    expect(await Promise.all([reads.get(1), reads.get(2), reads.get(3)])).to.deep.equal([2, 4, 6]);
    expect(asked).to.deep.equal([[1, 2, 3]]);
  });

  it('reads a key asked twice once, and answers both', async () => {
    const { reads, asked } = reader();
    expect(await Promise.all([reads.get(7), reads.get(7)])).to.deep.equal([14, 14]);
    expect(asked).to.deep.equal([[7]]);
  });

  it('puts the keys asked while a read runs in the next read, started after it', async () => {
    const { reads, asked, holdNext, release } = reader();
    holdNext();
    const first = reads.get(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).to.deep.equal([[1]]);
    const later = [reads.get(1), reads.get(2)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked, 'no second read while the first runs').to.deep.equal([[1]]);
    release();
    expect(await first).to.equal(2);
    expect(await Promise.all(later)).to.deep.equal([2, 4]);
    expect(asked).to.deep.equal([[1], [1, 2]]);
  });

  it('reads no more keys at once than its bound', async () => {
    const { reads, asked } = reader({ maxKeys: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((key) => reads.get(key)))).to.deep.equal([2, 4, 6, 8, 10]);
    expect(asked).to.deep.equal([[1, 2], [3, 4], [5]]);
  });

  it('fails the keys of a failed read, and reads the others', async () => {
    const { reads } = reader({ maxKeys: 1, fail: (keys) => keys.includes(1) });
    const [one, two] = await Promise.allSettled([reads.get(1), reads.get(2)]);
    expect(one.status).to.equal('rejected');
    expect(two).to.deep.equal({ status: 'fulfilled', value: 4 });
  });

  it('right after a read, lets keys asked one turn apart gather for the next one', async () => {
    const { reads, asked } = reader({ busyWithinMs: 60_000 });
    await reads.get(1);
    const second = reads.get(2);
    await new Promise((resolve) => setImmediate(resolve));
    const third = reads.get(3);
    expect(await Promise.all([second, third])).to.deep.equal([4, 6]);
    expect(asked).to.deep.equal([[1], [2, 3]]);
  });

  it('reads a key asked after a quiet while at the next turn, without gathering', async () => {
    const { reads, asked } = reader();
    await reads.get(1);
    const second = reads.get(2);
    await new Promise((resolve) => setImmediate(resolve));
    const third = reads.get(3);
    expect(await Promise.all([second, third])).to.deep.equal([4, 6]);
    expect(asked).to.deep.equal([[1], [2], [3]]);
  });
});
