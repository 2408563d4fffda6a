// GET /devices/{id}/availability: how long a phone was online over a range, counted from the
// changes presence announced as a real MQTT phone connected and left, on a clock the test moves.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { recordChanges } from '../../src/modules/availability/repository.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const REPORT_KEYS = ['device_id', 'from', 'to', 'online_seconds', 'offline_seconds', 'unknown_seconds', 'availability', 'changes', 'outages', 'outages_total'];

describe('availability: how long a device was online', () => {
  const clock = new ManualClock(Date.parse('2026-11-20T12:00:00Z'));
  // Silence never takes the phone offline here: the clock jumps minutes at a time.
  const fx = useGateway({ clock, config: { deviceOfflineAfterMs: 30 * DAY } });

  const report = async (deviceId: string, query = '') => {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}/availability${query}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body).to.have.all.keys(REPORT_KEYS);
    return reply.body;
  };
  const since = (start: number) => `?from=${new Date(start).toISOString()}`;
  /** Waits until the report since `start` counts `count` changes: each is written once presence announces it. */
  const changesReach = (deviceId: string, start: number, count: number) =>
    eventually(`${count} changes recorded`, async () => (await report(deviceId, `${since(start)}&to=${new Date(start + DAY).toISOString()}`)).changes === count);

  it('counts online and offline time from the phone connecting, leaving and coming back, with the outage, and leaves the time before the first change unknown', async () => {
    const start = clock.now() - 60 * MINUTE;
    const phone = await fx.connectDevice();
    await changesReach(phone.id, start, 1);
    const connectedAt = clock.now();

    clock.advance(10 * MINUTE);
    // The phone loses its network (no DISCONNECT), then comes back.
    await phone.kill();
    await changesReach(phone.id, start, 2);

    clock.advance(5 * MINUTE);
    await phone.connect();
    await changesReach(phone.id, start, 3);

    clock.advance(5 * MINUTE);
    const body = await report(phone.id, since(start));
    expect(body.device_id).to.equal(phone.id);
    expect(body.online_seconds).to.equal(15 * 60);
    expect(body.offline_seconds).to.equal(5 * 60);
    expect(body.unknown_seconds).to.equal(60 * 60);
    expect(body.availability).to.equal(0.75);
    expect(body.outages).to.deep.equal([
      { from: new Date(connectedAt + 10 * MINUTE).toISOString(), to: new Date(connectedAt + 15 * MINUTE).toISOString(), seconds: 5 * 60 },
    ]);
    expect(body.outages_total).to.equal(1);
    await phone.stop();
  });

  it('shows an outage still under way with no end, and a repeated announcement of the same state is no change', async () => {
    const phone = await fx.connectDevice();
    const start = clock.now();
    await changesReach(phone.id, start, 1);
    const window = `${since(start)}&to=${new Date(start + DAY).toISOString()}`;
    // Another node that lost sight of this one announces the phone online again: no change.
    fx.gateway.services.presence.announceOnline(phone.id, fx.tenant.accountId);
    clock.advance(MINUTE);
    await phone.stop();
    await changesReach(phone.id, start, 2);
    clock.advance(2 * MINUTE);
    const body = await report(phone.id, window);
    // What has not happened yet is unknown: every second of the range is counted once.
    expect(body.online_seconds + body.offline_seconds + body.unknown_seconds).to.equal(86_400);
    expect(body.outages).to.deep.equal([{ from: new Date(start + MINUTE).toISOString(), to: null, seconds: 120 }]);
    expect(body.availability).to.equal(Math.round((60 / 180) * 10_000) / 10_000);
  });

  it('keeps, after pruning changes older than 90 days, the state each device was in at the cutoff', async () => {
    const phone = await fx.connectDevice();
    const start = clock.now();
    await changesReach(phone.id, start, 1);
    clock.advance(MINUTE);
    await phone.kill();
    await changesReach(phone.id, start, 2);
    clock.advance(MINUTE);
    await phone.connect();
    await changesReach(phone.id, start, 3);

    clock.advance(91 * DAY);
    expect(await fx.gateway.services.availability.prune()).to.be.at.least(2);
    const body = await report(phone.id);
    expect(body).to.include({ online_seconds: 86_400, offline_seconds: 0, unknown_seconds: 0, availability: 1, changes: 0 });
    await phone.stop();
  });

  it('writes many changes in one statement, each only where it differs from the state before it: the device\'s last row, or its change just before in the same write', async () => {
    const [first, second] = [(await fx.registerDevice()).device.id, (await fx.registerDevice()).device.id];
    const db = fx.gateway.services.db;
    const at = clock.now() + DAY;
    const change = (deviceId: string, online: boolean, offset: number) => ({ accountId: fx.tenant.accountId, deviceId, online, at: new Date(at + offset * MINUTE) });
    expect(await recordChanges(db, [change(first, true, 0)])).to.equal(1);
    const written = await recordChanges(db, [
      // Online already: no change.
      change(first, true, 1),
      change(second, false, 1),
      change(first, false, 2),
      change(second, false, 2),
      change(first, false, 3),
      change(first, true, 4),
      change(second, true, 4),
    ]);
    expect(written).to.equal(4);
    const rows = await db('device_availability').whereIn('device_id', [first, second]).where('at', '>=', new Date(at)).orderBy('id').select('device_id', 'online', 'at');
    expect(rows.map((row) => [row.device_id === first ? 'first' : 'second', row.online, (row.at.getTime() - at) / MINUTE])).to.deep.equal([
      ['first', true, 0],
      ['second', false, 1],
      ['first', false, 2],
      ['first', true, 4],
      ['second', true, 4],
    ]);
  });

  it('answers 404 for a device of another account and 400 for a range it cannot count, naming the field', async () => {
    const { device } = await fx.registerDevice();
    const other = await fx.newTenant();
    const foreign = await other.api.get(`/devices/${device.id}/availability`);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('device_not_found');
    expect((await fx.tenant.api.get(`/devices/${randomUUID()}/availability`)).status).to.equal(404);

    const now = clock.now();
    const iso = (at: number) => new Date(at).toISOString();
    const refused = [
      [`?from=${iso(now)}&to=${iso(now - MINUTE)}`, 'to'],
      [`?from=${iso(now - 40 * DAY)}&to=${iso(now)}`, 'to'],
      [`?from=${iso(now - 100 * DAY)}&to=${iso(now - 95 * DAY)}`, 'from'],
      ['?from=yesterday', 'from'],
    ] as const;
    for (const [query, field] of refused) {
      const reply = await fx.tenant.api.get(`/devices/${device.id}/availability${query}`);
      expect(reply.status, query).to.equal(400);
      expect(reply.body.error.code, query).to.equal('validation_failed');
      expect(JSON.stringify(reply.body.error.details), query).to.contain(field);
    }
    expect((await fx.tenant.api.get('/devices/not-a-uuid/availability')).status).to.equal(400);
  });
});
