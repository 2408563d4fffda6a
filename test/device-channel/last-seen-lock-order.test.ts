// Writing when phones were last seen locks their device rows in id order, the order a batch of
// status reports locks them in. Here a transaction of the test's own stands for that batch: it
// holds the lower device row while the last-seen write starts on both, then takes the higher
// one. Taken in the same order, the write waits and then runs; taken in any other, one of the
// two would be rolled back as a deadlock.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { statementWaitsForLock } from '../support/lock-waits.ts';
import { recordLastSeen } from '../../src/modules/devices/repository.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { deviceRow, lockDeviceRow, updateDevices } from '../support/test-data.ts';

describe('device channel: last-seen writes beside a batch of status reports', function () {
  // Several connections locking rows against each other: PGlite has one connection and no deadlocks.
  onlyOnPostgres();
  const fx = useGateway();

  it('lock device rows in the same order, so neither is rolled back', async function () {
    this.timeout(30_000);
    const ids = [(await fx.registerDevice('first')).device.id, (await fx.registerDevice('second')).device.id].sort();
    const [lower, higher] = ids as [string, string];
    const db = fx.gateway.services.db;
    const seenAt = new Date();
    // A row's new version goes to the end of the table: the higher row now comes first in a
    // scan, the order a write that locks rows as it reads them would take.
    await updateDevices(fx, lower, { updated_at: new Date() });

    const trx = await db.transaction();
    let written: Promise<void> = Promise.resolve();
    try {
      await lockDeviceRow(trx, lower);
      // Listed highest first: the order the rows are listed in must not be the order they are locked in.
      written = recordLastSeen(db, [
        [higher, seenAt],
        [lower, seenAt],
      ]);
      await statementWaitsForLock(db, 'devices');
      await lockDeviceRow(trx, higher);
      await trx.commit();
    } catch (error) {
      await trx.rollback();
      throw error;
    }
    await written;

    for (const id of ids) expect(((await deviceRow(fx, id)).last_seen_at as Date).getTime(), id).to.be.at.least(seenAt.getTime());
  });
});
