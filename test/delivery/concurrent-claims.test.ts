// Claims of one device are serialised by its row lock, on every node: however many claims run at
// once (two gateway nodes, or a pool offer and a finished task at the same moment), the device
// never gets more than its window or its limits allow. PostgreSQL only: the embedded database
// has one connection, so two transactions can never overlap there.
import { expect } from 'chai';
import { claimSms, deviceUsage, LIMIT_GRACE_MS } from '../../src/modules/delivery/repository.ts';
import { roomFor } from '../../src/modules/delivery/pacing.ts';
import { useGateway } from '../support/use-gateway.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';

describe('delivery: concurrent claims of one device', () => {
  // Two transactions overlapping: the embedded database has one connection, so they never do there.
  onlyOnPostgres();
  const fx = useGateway();


  /** One claim as the dispatcher makes it: lock, count, decide, take. */
  async function claimOnce(deviceId: string): Promise<number> {
    const now = Date.now();
    return fx.gateway.services.db.transaction(async (trx) => {
      const usage = await deviceUsage(trx, deviceId, now, true);
      if (!usage) return 0;
      const room = roomFor(usage.settings, usage.usage, now, LIMIT_GRACE_MS);
      return room.room > 0 ? (await claimSms(trx, usage, room.room, now)).taken.length : 0;
    });
  }

  async function deviceWith(settings: Record<string, unknown>): Promise<string> {
    const { device } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'contended');
    expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, settings)).status).to.equal(200);
    return device.id;
  }

  async function queue(count: number): Promise<void> {
    const created = await fx.tenant.api.post('/sms/bulk', {
      messages: Array.from({ length: count }, (_, i) => ({ phone: '+79161234567', message: `contended ${i}` })),
    });
    expect(created.status).to.equal(201);
  }

  it('when 8 claims for one device run at once, then together they take no more than its send_window', async () => {
    const deviceId = await deviceWith({ send_window: 3, limits: { per_minute: null, per_hour: null, per_day: null } });
    await queue(40);
    const taken = await Promise.all(Array.from({ length: 8 }, () => claimOnce(deviceId)));
    expect(taken.reduce((sum, n) => sum + n, 0)).to.equal(3);
  });

  it('when 8 claims for one device run at once, then together they take no more than its per_minute limit', async () => {
    const deviceId = await deviceWith({ send_window: 50, limits: { per_minute: 4, per_hour: null, per_day: null } });
    await queue(40);
    const taken = await Promise.all(Array.from({ length: 8 }, () => claimOnce(deviceId)));
    expect(taken.reduce((sum, n) => sum + n, 0)).to.equal(4);
  });
});
