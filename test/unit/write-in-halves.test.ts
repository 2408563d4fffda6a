// writeInHalves (src/storage/write-in-halves.ts) on its own: rows that break a statement end up
// failing alone while the others are written; a failure that is not one row's stops the writing
// and answers the rows not written.
import { expect } from 'chai';
import { writeInHalves } from '../../src/storage/write-in-halves.ts';

const checkViolation = () => Object.assign(new Error('violates check constraint'), { code: '23514' });

describe('writeInHalves', () => {
  it('writes every row but the ones that break the statement, which fail alone', async () => {
    const written: number[] = [];
    const alone: number[] = [];
    const rows = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const stopped = await writeInHalves(
      rows,
      async (part) => {
        if (part.includes(3) || part.includes(8)) throw checkViolation();
        written.push(...part);
      },
      (row) => alone.push(row),
    );
    expect(stopped).to.equal(undefined);
    expect(alone).to.deep.equal([3, 8]);
    expect(written.sort((a, b) => a - b)).to.deep.equal([0, 1, 2, 4, 5, 6, 7, 9]);
  });

  it('stops at a failure every row would meet, answering it with the rows not written', async () => {
    const written: number[] = [];
    let calls = 0;
    const stopped = await writeInHalves(
      [0, 1, 2, 3, 4, 5, 6, 7],
      async (part) => {
        calls++;
        // The batch and its first half are refused for a row; [0, 1] goes in; then the database goes away.
        if (calls === 1 || calls === 2) throw checkViolation();
        if (calls >= 4) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        written.push(...part);
      },
      () => expect.fail('no row fails alone before the outage'),
    );
    // 8 rows refused, then [0..3] refused, then [0, 1] written, then [2, 3] meets the outage.
    expect(written).to.deep.equal([0, 1]);
    expect((stopped?.error as { code: string }).code).to.equal('ECONNREFUSED');
    expect(stopped?.rows).to.deep.equal([2, 3, 4, 5, 6, 7]);
  });
});
