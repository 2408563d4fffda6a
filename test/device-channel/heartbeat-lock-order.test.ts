// Writing many phones' heartbeats in one transaction locks their device rows in id order, the
// order a batch of status reports (and the last-seen writes) lock them in. Here a transaction of
// the test's own stands for that batch: it holds the lower device row while the heartbeats' write
// starts on both, then takes the higher one. Taken in the same order, the write waits and then
// runs; taken in any other, one of the two would be rolled back as a deadlock.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { statementWaitsForLock } from '../support/lock-waits.ts';
import { recordHeartbeats, type DeviceRow } from '../../src/modules/devices/repository.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

describe('device channel: heartbeat writes beside a batch of status reports', function () {
  // Several connections locking rows against each other: PGlite has one connection and no deadlocks.
  onlyOnPostgres();
  const fx = useGateway();

  it('lock device rows in the same order, so neither is rolled back, and answer every row written', async function () {
    this.timeout(30_000);
    const devices = [(await fx.registerDevice('first')).device, (await fx.registerDevice('second')).device].sort((a, b) => (a.id < b.id ? -1 : 1));
    const [lower, higher] = devices.map((device) => device.id) as [string, string];
    const db = fx.gateway.services.db;
    // A row's new version goes to the end of the table: the higher row now comes first in a
    // scan, the order a write that locks rows as it reads them would take.
    await db('devices').where({ id: lower }).update({ updated_at: db.fn.now() });

    const trx = await db.transaction();
    let written: Promise<DeviceRow[]> = Promise.resolve([]);
    try {
      await trx.raw('update devices set consecutive_failures = consecutive_failures where id = ?', [lower]);
      // Listed highest first: the order the rows are listed in must not be the order they are locked in.
      written = recordHeartbeats(db, [
        { id: higher, values: { battery_level: 61, is_charging: true, sim_cards: [], name: 'Pixel 8' } },
        { id: lower, values: { battery_level: 42, is_charging: false, signal_percent: 70, sim_cards: [] } },
      ]);
      await statementWaitsForLock(db, 'devices');
      await trx.raw('update devices set consecutive_failures = consecutive_failures where id = ?', [higher]);
      await trx.commit();
    } catch (error) {
      await trx.rollback();
      throw error;
    }
    const rows = await written;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(higher)).to.include({ battery_level: 61, is_charging: true, name: 'Pixel 8', signal_percent: null });
    // No name in its heartbeat: the name stays.
    expect(byId.get(lower)).to.include({ battery_level: 42, is_charging: false, name: devices[0]!.name, signal_percent: 70 });
  });
});
