// HeartbeatWriter (src/modules/devices/heartbeat-writer.ts) on its own: the heartbeats that waited
// of many devices go in one write, at most a few writes at once; one write at a time per device,
// of a device's heartbeats that waited only the newest written, the ones it replaced answered once
// it is; a heartbeat that breaks its write fails alone, and a write failed whole fails its callers.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { HeartbeatWriter, type HeartbeatWritten } from '../../src/modules/devices/heartbeat-writer.ts';
import type { DeviceRow, HeartbeatToWrite, HeartbeatValues } from '../../src/modules/devices/repository.ts';

const values = (battery: number): HeartbeatValues => ({ battery_level: battery, is_charging: false, sim_cards: [] });

/** A row as the database would answer it: the device with the battery level written. */
const rowOf = ({ id, values }: HeartbeatToWrite) => ({ id, battery_level: values.battery_level }) as unknown as DeviceRow;

/** Writes that end when the test says so, each kept with what it was given. */
function heldWrites() {
  const writes: { batch: HeartbeatToWrite[]; finish: () => void; fail: (error: unknown) => void }[] = [];
  let started: () => void = () => {};
  const write = (batch: HeartbeatToWrite[]) =>
    new Promise<DeviceRow[]>((resolve, reject) => {
      writes.push({ batch, finish: () => resolve(batch.map(rowOf)), fail: reject });
      started();
    });
  /** Resolves once `count` writes have started. */
  const startedCount = (count: number) =>
    new Promise<void>((resolve) => {
      started = () => writes.length >= count && resolve();
      started();
    });
  return { writes, write, startedCount };
}

const ids = (count: number) => Array.from({ length: count }, () => randomUUID());
const batteries = (batch: HeartbeatToWrite[]) => batch.map((heartbeat) => heartbeat.values.battery_level);

describe('HeartbeatWriter', () => {
  it('writes the heartbeats of many devices that waited in one write, at most the given number of writes at once, each of at most the given devices, in the order they came', async () => {
    const held = heldWrites();
    const writer = new HeartbeatWriter(held.write, { atOnce: 2, maxBatch: 3, delayMs: 0 });
    const devices = ids(8);
    const written = devices.map((id, i) => writer.add(id, values(i)));
    await held.startedCount(2);
    expect(held.writes.map((write) => batteries(write.batch))).to.deep.equal([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    held.writes[1]!.finish();
    await held.startedCount(3);
    expect(batteries(held.writes[2]!.batch)).to.deep.equal([6, 7]);
    for (const write of held.writes) write.finish();
    const answers = await Promise.all(written);
    expect(answers.map((answer) => ('row' in answer ? answer.row?.id : answer))).to.deep.equal(devices);
  });

  it('writes one heartbeat of a device at a time; of those that waited meanwhile only the newest, whose caller gets the row, the replaced ones answered as superseded once it is written', async () => {
    const held = heldWrites();
    const writer = new HeartbeatWriter(held.write, { atOnce: 2, maxBatch: 10, delayMs: 0 });
    const [phone, other] = ids(2) as [string, string];
    const first = writer.add(phone, values(50));
    await held.startedCount(1);
    const second = writer.add(phone, values(49));
    const third = writer.add(phone, values(48));
    const beside = writer.add(other, values(90));
    let secondAnswered = false;
    void second.then(() => (secondAnswered = true));
    // The free slot takes the other device only: the phone's heartbeat is being written.
    await held.startedCount(2);
    expect(held.writes[1]!.batch.map((heartbeat) => heartbeat.id)).to.deep.equal([other]);
    held.writes[1]!.finish();
    await beside;
    held.writes[0]!.finish();
    expect(await first).to.deep.equal({ row: { id: phone, battery_level: 50 } });
    await held.startedCount(3);
    expect(batteries(held.writes[2]!.batch)).to.deep.equal([48]);
    expect(secondAnswered, 'answered before the heartbeat that replaced it was written').to.equal(false);
    held.writes[2]!.finish();
    expect(await second).to.deep.equal({ superseded: true });
    expect(await third).to.deep.equal({ row: { id: phone, battery_level: 48 } });
    expect(held.writes).to.have.length(3);
  });

  it('answers no row for a device the write did not find (deleted), and for an id that is none, without a write', async () => {
    const [kept, deleted] = ids(2) as [string, string];
    const batches: string[][] = [];
    const writer = new HeartbeatWriter(
      async (batch) => {
        batches.push(batch.map((heartbeat) => heartbeat.id));
        return batch.filter((heartbeat) => heartbeat.id !== deleted).map(rowOf);
      },
      { atOnce: 1, maxBatch: 10, delayMs: 0 },
    );
    const answers: HeartbeatWritten[] = await Promise.all([writer.add(kept, values(70)), writer.add(deleted, values(70)), writer.add('not-a-device', values(70))]);
    expect(answers).to.deep.equal([{ row: { id: kept, battery_level: 70 } }, { row: undefined }, { row: undefined }]);
    expect(batches).to.deep.equal([[kept, deleted]]);
  });

  it('fails a heartbeat that breaks its write alone: its callers hear the error, the devices beside it are written', async () => {
    const devices = ids(5);
    const broken = devices[3]!;
    const refusal = Object.assign(new Error('value out of range for type smallint'), { code: '22003' });
    const writer = new HeartbeatWriter(
      async (batch) => {
        if (batch.some((heartbeat) => heartbeat.id === broken)) throw refusal;
        return batch.map(rowOf);
      },
      { atOnce: 2, maxBatch: 10, delayMs: 0 },
    );
    const outcomes = await Promise.allSettled(devices.map((id) => writer.add(id, values(40))));
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[3] as PromiseRejectedResult).reason).to.equal(refusal);
  });

  it('fails every caller of a write the database failed whole, replaced heartbeats too, and goes on with the next write', async () => {
    const held = heldWrites();
    const writer = new HeartbeatWriter(held.write, { atOnce: 1, maxBatch: 10, delayMs: 0 });
    const [phone, other] = ids(2) as [string, string];
    const first = writer.add(phone, values(30));
    const replaced = writer.add(phone, values(29));
    const beside = writer.add(other, values(60));
    await held.startedCount(1);
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    held.writes[0]!.fail(outage);
    const outcomes = await Promise.allSettled([first, replaced, beside]);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : outcome.value))).to.deep.equal([outage, outage, outage]);
    const later = writer.add(phone, values(28));
    await held.startedCount(2);
    held.writes[1]!.finish();
    expect(await later).to.deep.equal({ row: { id: phone, battery_level: 28 } });
  });

  it('drain() writes what waits at once, without its wait for others, and ends once every write has ended', async () => {
    const held = heldWrites();
    const writer = new HeartbeatWriter(held.write, { atOnce: 1, maxBatch: 10, delayMs: 60_000 });
    const [phone, other] = ids(2) as [string, string];
    const first = writer.add(phone, values(20));
    const second = writer.add(other, values(21));
    let drained = false;
    const draining = writer.drain().then(() => (drained = true));
    await held.startedCount(1);
    expect(held.writes[0]!.batch.map((heartbeat) => heartbeat.id)).to.deep.equal([phone, other]);
    expect(drained).to.equal(false);
    held.writes[0]!.finish();
    await draining;
    expect(await Promise.all([first, second])).to.deep.equal([{ row: { id: phone, battery_level: 20 } }, { row: { id: other, battery_level: 21 } }]);
  });

  it('refuses to be made with no write at once', () => {
    expect(() => new HeartbeatWriter(async () => [], { atOnce: 0, maxBatch: 10, delayMs: 0 })).to.throw(RangeError);
  });
});
