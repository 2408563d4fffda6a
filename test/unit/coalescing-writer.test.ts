// CoalescingWriter (src/storage/coalescing-writer.ts) on its own: events of one key that arrive
// before their write become one row, merged as the owner says; many keys share one write; a write
// waits for the one under way; close() writes what waits and then takes nothing more; a failed
// write is logged, not thrown.
import { expect } from 'chai';
import { createLogger } from '../../src/common/logger.ts';
import { CoalescingWriter } from '../../src/storage/coalescing-writer.ts';

type Seen = { key: string; at: number };

function writerOf(write: (batch: Seen[]) => Promise<void>, options: { maxBatch?: number } = {}) {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }, undefined, 'json');
  const writer = new CoalescingWriter<Seen>({
    delayMs: 5,
    maxBatch: options.maxBatch ?? 100,
    merge: (waiting, arriving) => (arriving.at >= waiting.at ? arriving : waiting),
    write,
    logger,
    whileDatabaseDown: 'seen times not recorded',
    failed: 'seen times not recorded',
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
});
