// ChangeWriter (src/modules/availability/change-writer.ts) on its own: changes announced together
// go in one write, in the order announced, at most the given number to a write and one write at a
// time; close() writes what waits, and what arrives meanwhile; a change that breaks its write
// alone is lost alone (silently when its device is gone), and a write failed whole is logged and
// counted, never thrown.
import { expect } from 'chai';
import { createLogger } from '../../src/common/logger.ts';
import { ChangeWriter } from '../../src/modules/availability/change-writer.ts';
import type { AnnouncedChange } from '../../src/modules/availability/repository.ts';

const change = (deviceId: string, online: boolean, at = 0): AnnouncedChange => ({ accountId: 'account', deviceId, online, at: new Date(at) });
const named = (changes: AnnouncedChange[]) => changes.map(({ deviceId, online }) => `${deviceId} ${online ? 'online' : 'offline'}`);

function writerOf(write: (changes: AnnouncedChange[]) => Promise<unknown>, maxBatch = 100) {
  const lines: { level: number; msg: string; changes?: number }[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }, undefined, 'json');
  let notRecorded = 0;
  const writer = new ChangeWriter(write, { delayMs: 2, maxBatch, logger, notRecorded: (changes) => (notRecorded += changes) });
  return { writer, lines, notRecorded: () => notRecorded };
}

describe('availability ChangeWriter', () => {
  it('writes the changes announced together in one write, in the order announced, a device changing twice included', async () => {
    const writes: string[][] = [];
    const { writer } = writerOf(async (changes) => void writes.push(named(changes)));
    writer.add(change('a', true));
    writer.add(change('b', true));
    writer.add(change('a', false));
    writer.add(change('a', true));
    await writer.close();
    expect(writes).to.deep.equal([['a online', 'b online', 'a offline', 'a online']]);
  });

  it('writes one write at a time, at most the given number of changes each, and close() writes what arrives meanwhile too', async () => {
    const writes: string[][] = [];
    let running = 0;
    let most = 0;
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const { writer } = writerOf(async (changes) => {
      running++;
      most = Math.max(most, running);
      writes.push(named(changes));
      if (writes.length === 1) {
        firstStarted();
        await firstHeld;
      }
      running--;
    }, 2);
    for (const device of ['a', 'b', 'c']) writer.add(change(device, true));
    await started;
    const closed = writer.close();
    writer.add(change('a', false));
    release();
    await closed;
    expect(most).to.equal(1);
    expect(writes).to.deep.equal([['a online', 'b online'], ['c online', 'a offline']]);
  });

  it('loses alone a change that breaks its write: silently when its device is gone, logged and counted otherwise', async () => {
    const written: string[] = [];
    const { writer, lines, notRecorded } = writerOf(async (changes) => {
      if (changes.some((each) => each.deviceId === 'deleted')) throw Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
      if (changes.some((each) => each.deviceId === 'broken')) throw Object.assign(new Error('invalid input syntax for type uuid'), { code: '22P02' });
      written.push(...named(changes));
    });
    for (const device of ['a', 'deleted', 'b', 'broken', 'c']) writer.add(change(device, true));
    await writer.close();
    expect(written).to.deep.equal(['a online', 'b online', 'c online']);
    expect(notRecorded()).to.equal(1);
    expect(lines.filter((line) => line.msg === 'availability changes not recorded').map((line) => line.changes)).to.deep.equal([1]);
  });

  it('counts the changes of a write the database failed whole, logs the outage once, and goes on with the next write', async () => {
    let down = true;
    const written: string[] = [];
    let failedWrites = 0;
    let twoFailed!: () => void;
    const failedTwice = new Promise<void>((resolve) => (twoFailed = resolve));
    const { writer, lines, notRecorded } = writerOf(async (changes) => {
      if (down) {
        if (++failedWrites === 2) twoFailed();
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      written.push(...named(changes));
    }, 1);
    writer.add(change('a', true));
    writer.add(change('b', true));
    await failedTwice;
    down = false;
    writer.add(change('c', false));
    await writer.close();
    expect(written).to.deep.equal(['c offline']);
    expect(notRecorded()).to.equal(2);
    const messages = lines.map((line) => line.msg);
    expect(messages.filter((msg) => msg.startsWith('database unreachable'))).to.have.length(1);
    expect(messages.filter((msg) => msg.startsWith('database reachable again'))).to.have.length(1);
  });
});
