// CoalescingWriter (src/storage/coalescing-writer.ts) on its own: events of one key that arrive
// before their write become one row, merged as the owner says; many keys share one write; a write
// waits for the one under way; close() writes what waits and then takes nothing more; a write
// that met an outage or lost a race for locks waits again (nothing dropped), one that failed for
// good is split until its failing rows are alone, and those are logged, not thrown.
import { expect } from 'chai';
import { createLogger } from '../../src/common/logger.ts';
import { CoalescingWriter } from '../../src/storage/coalescing-writer.ts';

type Seen = { key: string; at: number };

function writerOf(write: (batch: Seen[]) => Promise<void>, options: { maxBatch?: number; outageRetryMs?: number; merge?: (waiting: Seen, arriving: Seen) => Seen } = {}) {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }, undefined, 'json');
  const writer = new CoalescingWriter<Seen>({
    delayMs: 5,
    maxBatch: options.maxBatch ?? 100,
    merge: options.merge ?? ((waiting, arriving) => (arriving.at >= waiting.at ? arriving : waiting)),
    write,
    logger,
    whileDatabaseDown: 'seen times not recorded',
    failed: 'seen times not recorded',
    outageRetryMs: options.outageRetryMs ?? 5,
  });
  return { writer, lines };
}

describe('CoalescingWriter', () => {
  it('writes the events of one key as one row, the later one kept, and many keys in one write', async () => {
    const writes: Seen[][] = [];
    const { writer } = writerOf(async (batch) => void writes.push(batch));
    writer.add('a', { key: 'a', at: 2 });
    writer.add('a', { key: 'a', at: 1 });
    writer.add('b', { key: 'b', at: 5 });
    writer.add('a', { key: 'a', at: 3 });
    await writer.flush();
    expect(writes).to.deep.equal([
      [
        { key: 'a', at: 3 },
        { key: 'b', at: 5 },
      ],
    ]);
  });

  it('starts no write while one is under way, and writes what arrived meanwhile next', async () => {
    const writes: Seen[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let most = 0;
    const { writer } = writerOf(async (batch) => {
      running++;
      most = Math.max(most, running);
      writes.push(batch);
      if (writes.length === 1) await first;
      running--;
    }, { maxBatch: 1 });
    writer.add('a', { key: 'a', at: 1 });
    writer.add('b', { key: 'b', at: 1 });
    writer.add('c', { key: 'c', at: 1 });
    const flushed = writer.flush();
    release();
    await flushed;
    expect(most).to.equal(1);
    expect(writes.map((batch) => batch.map((row) => row.key))).to.deep.equal([['a'], ['b'], ['c']]);
  });

  it('close() writes what waits, then takes nothing more', async () => {
    const writes: Seen[][] = [];
    const { writer } = writerOf(async (batch) => void writes.push(batch));
    writer.add('a', { key: 'a', at: 1 });
    await writer.close();
    writer.add('b', { key: 'b', at: 1 });
    await writer.flush();
    expect(writes).to.deep.equal([[{ key: 'a', at: 1 }]]);
  });

  it('logs a failed write and goes on with the next', async () => {
    const writes: Seen[][] = [];
    const { writer, lines } = writerOf(async (batch) => {
      if (batch[0]!.key === 'bad') throw new Error('no such table');
      writes.push(batch);
    });
    writer.add('bad', { key: 'bad', at: 1 });
    await writer.flush();
    writer.add('good', { key: 'good', at: 1 });
    await writer.flush();
    expect(lines.map((line) => line.msg)).to.deep.equal(['seen times not recorded']);
    expect(writes).to.deep.equal([[{ key: 'good', at: 1 }]]);
  });

  it('keeps a batch that met an outage and writes it once the database answers, under what arrived meanwhile', async () => {
    const writes: Seen[][] = [];
    let down = true;
    let refused = 0;
    let written!: () => void;
    const done = new Promise<void>((resolve) => (written = resolve));
    const { writer, lines } = writerOf(async (batch) => {
      if (down) {
        refused++;
        if (refused === 2) down = false;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      writes.push(batch);
      written();
    });
    writer.add('a', { key: 'a', at: 1 });
    writer.add('b', { key: 'b', at: 1 });
    await writer.flush();
    // The failed write left both rows waiting; a newer event of one key replaces it, an older one does not.
    writer.add('a', { key: 'a', at: 2 });
    writer.add('b', { key: 'b', at: 0 });
    await done;
    await writer.flush();
    expect(refused).to.equal(2);
    expect(writes).to.deep.equal([
      [
        { key: 'a', at: 2 },
        { key: 'b', at: 1 },
      ],
    ]);
    expect(lines.map((line) => line.msg)).to.deep.equal(['database unreachable: seen times not recorded', 'database reachable again (was: seen times not recorded)']);
  });

  it('writes a batch again at once when the database rolled it back in a deadlock', async () => {
    const writes: Seen[][] = [];
    let attempts = 0;
    const { writer, lines } = writerOf(async (batch) => {
      attempts++;
      if (attempts === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      writes.push(batch);
    });
    writer.add('a', { key: 'a', at: 1 });
    await writer.flush();
    await writer.flush();
    expect(attempts).to.equal(2);
    expect(writes).to.deep.equal([[{ key: 'a', at: 1 }]]);
    expect(lines).to.deep.equal([]);
  });

  it('close() through an outage tries once, then says how many rows it could not write', async () => {
    let attempts = 0;
    const { writer, lines } = writerOf(async () => {
      attempts++;
      throw Object.assign(new Error('Connection terminated unexpectedly'), {});
    }, { outageRetryMs: 60_000 });
    writer.add('a', { key: 'a', at: 1 });
    writer.add('b', { key: 'b', at: 1 });
    await writer.close();
    expect(attempts).to.equal(1);
    const last = lines.at(-1) as { msg: string; rows?: number };
    expect(last.msg).to.equal('seen times not recorded: the database closed before they could be written');
    expect(last.rows).to.equal(2);
  });

  it('splits a write that fails for good until the failing row is alone: the others are written, that one logged', async () => {
    const written: string[] = [];
    let writes = 0;
    const { writer, lines } = writerOf(async (batch) => {
      writes++;
      if (batch.some((row) => row.key === 'bad')) throw new Error('insert violates foreign key constraint');
      written.push(...batch.map((row) => row.key));
    });
    for (const key of ['a', 'b', 'bad', 'c', 'd']) writer.add(key, { key, at: 1 });
    await writer.flush();
    expect(written.sort()).to.deep.equal(['a', 'b', 'c', 'd']);
    // The five, then halves: [a b bad] fails, [a b] written, [bad] alone fails, [c d] written.
    expect(writes).to.equal(5);
    expect(lines.map((line) => [line.msg, (line as { rows?: number }).rows])).to.deep.equal([['seen times not recorded', 1]]);
  });

  it('close() after a lost lock race writes the rows again at once and drops nothing', async () => {
    const writes: Seen[][] = [];
    let attempts = 0;
    const { writer, lines } = writerOf(async (batch) => {
      if (++attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      writes.push(batch);
    });
    writer.add('a', { key: 'a', at: 1 });
    await writer.close();
    expect(writes).to.deep.equal([[{ key: 'a', at: 1 }]]);
    expect(lines).to.deep.equal([]);
  });

  it('does not split a statement the database refuses whole: one attempt, one warning for all its rows', async () => {
    let attempts = 0;
    const { writer, lines } = writerOf(async () => {
      attempts++;
      throw Object.assign(new Error('column "last_sms_at" does not exist'), { code: '42703' });
    });
    for (const key of ['a', 'b', 'c', 'd']) writer.add(key, { key, at: 1 });
    await writer.flush();
    expect(attempts).to.equal(1);
    expect(lines.map((line) => [line.msg, (line as { rows?: number }).rows])).to.deep.equal([['seen times not recorded', 4]]);
  });

  it('leaves the rest of a split waiting when the database goes away during it, and writes it all once back', async () => {
    const attempted: string[][] = [];
    const written: string[] = [];
    let down = false;
    let wentDown = false;
    let back!: () => void;
    const allWritten = new Promise<void>((resolve) => (back = resolve));
    const { writer } = writerOf(async (batch) => {
      const keys = batch.map((row) => row.key);
      attempted.push(keys);
      if (down) {
        down = false;
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      }
      if (keys.includes('bad')) {
        // The first half of the split is where the database goes away.
        if (keys.length === 4 && !wentDown) down = wentDown = true;
        throw Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
      }
      written.push(...keys);
      if (written.length === 7) back();
    });
    for (const key of ['a', 'b', 'bad', 'c', 'd', 'e', 'f', 'g']) writer.add(key, { key, at: 1 });
    await writer.flush();
    // All eight, then the first half (bad in it, database away after), then its first half refused: the
    // second half of eight was not tried while the database was away.
    expect(attempted).to.deep.equal([
      ['a', 'b', 'bad', 'c', 'd', 'e', 'f', 'g'],
      ['a', 'b', 'bad', 'c'],
      ['a', 'b'],
    ]);
    await allWritten;
    expect(written.sort()).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('says so once when writes keep losing lock races, and writes them once a race is won', async () => {
    let attempts = 0;
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    const { writer, lines } = writerOf(async () => {
      if (++attempts <= 4) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      done();
    });
    writer.add('a', { key: 'a', at: 1 });
    await written;
    await writer.flush();
    expect(attempts).to.equal(5);
    expect(lines.map((line) => line.msg)).to.deep.equal(['seen times not recorded: rolled back in lost lock races in a row; writing again after a pause']);
  });

  it('keeps an event that arrived during a write the database refused as the later one when the rows wait again', async () => {
    const writes: Seen[][] = [];
    let attempts = 0;
    let writer!: CoalescingWriter<Seen>;
    ({ writer } = writerOf(
      async (batch) => {
        if (++attempts === 1) {
          // Arrives while the first write is under way, and is the later event of its key.
          writer.add('a', { key: 'a', at: 1 });
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        }
        writes.push(batch);
      },
      { merge: (_waiting, arriving) => arriving },
    ));
    writer.add('a', { key: 'a', at: 5 });
    await writer.flush();
    await writer.flush();
    expect(writes).to.deep.equal([[{ key: 'a', at: 1 }]]);
  });
});
