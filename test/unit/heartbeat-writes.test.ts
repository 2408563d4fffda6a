// broker/heartbeat-writes.ts: a fleet's heartbeats take at most a few database connections at once,
// each device's are written in the order they came, and a waiting one is replaced by a newer one.
import { expect } from 'chai';
import { HeartbeatWrites } from '../../broker/heartbeat-writes.ts';

/** A write that ends when the test says so. */
function heldWrite(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    write: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('heartbeat writes', () => {
  it('writes at most the given number at once, in the order they came', async () => {
    const log: string[] = [];
    const writes = new HeartbeatWrites(2);
    const held = ['a', 'b', 'c', 'd'].map((device) => heldWrite(log, device));
    const written = held.map((h, i) => writes.add(`device-${i}`, h.write));
    await settle();
    expect(log).to.deep.equal(['start a', 'start b']);
    held[1]!.finish();
    await written[1];
    await settle();
    expect(log).to.deep.equal(['start a', 'start b', 'end b', 'start c']);
    for (const h of held) h.finish();
    await Promise.all(written);
    expect(log.filter((line) => line.startsWith('start'))).to.deep.equal(['start a', 'start b', 'start c', 'start d']);
  });

  it('writes one heartbeat of a device at a time, and of those that waited meanwhile only the newest, telling each caller once it is written', async () => {
    const log: string[] = [];
    const writes = new HeartbeatWrites(4);
    const first = heldWrite(log, 'first');
    const third = heldWrite(log, 'third');
    const firstWritten = writes.add('phone', first.write);
    const secondWritten = writes.add('phone', heldWrite(log, 'second').write);
    const thirdWritten = writes.add('phone', third.write);
    await settle();
    expect(log).to.deep.equal(['start first']);
    first.finish();
    await firstWritten;
    await settle();
    expect(log).to.deep.equal(['start first', 'end first', 'start third']);
    let secondDone = false;
    void secondWritten.then(() => (secondDone = true));
    await settle();
    expect(secondDone, 'the replaced heartbeat is answered with the write that replaced it').to.equal(false);
    third.finish();
    await Promise.all([secondWritten, thirdWritten]);
    expect(log).to.not.include('start second');
  });

  it('rejects the callers of a failed write and goes on with the next', async () => {
    const writes = new HeartbeatWrites(1);
    const failed = writes.add('broken', async () => {
      throw new Error('no database');
    });
    let written = false;
    const next = writes.add('fine', async () => {
      written = true;
    });
    const outcome = await failed.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await next;
    expect(outcome).to.equal('no database');
    expect(written).to.equal(true);
  });
});
