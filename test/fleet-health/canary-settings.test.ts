// An account's canary rounds are off until its owner switches them on: GET /account/canary says
// the defaults, PATCH changes what it names and keeps the rest, switching on schedules the next
// round an interval from now and switching off clears it. Bad values are a 400 naming the field,
// and a key without the devices permissions may not read or change them.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { ManualClock } from '../../src/common/clock.ts';

const KEYS = ['enabled', 'interval_minutes', 'timeout_seconds', 'next_round_at', 'last_round_at', 'rounds_run', 'updated_at'];

describe('fleet health: the canary settings', () => {
  const clock = new ManualClock(Date.parse('2026-12-04T10:00:00Z'));
  const fx = useGateway({ clock });

  it('when never set, then rounds are off with the defaults, no round scheduled and none run', async () => {
    const reply = await fx.tenant.api.get('/account/canary');
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(Object.keys(reply.body)).to.have.members(KEYS);
    expect(reply.body).to.deep.equal({ enabled: false, interval_minutes: 60, timeout_seconds: 300, next_round_at: null, last_round_at: null, rounds_run: 0, updated_at: null });
  });

  it('when switched on with an interval, then the next round is an interval from now; a change of timeout keeps it; switched off, none is due', async () => {
    const on = await fx.tenant.api.patch('/account/canary', { enabled: true, interval_minutes: 15 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(on.body).to.include({ enabled: true, interval_minutes: 15, timeout_seconds: 300, rounds_run: 0, last_round_at: null });
    expect(on.body.next_round_at).to.equal(new Date(clock.now() + 15 * 60_000).toISOString());
    expect(on.body.updated_at).to.equal(new Date(clock.now()).toISOString());

    clock.advance(60_000);
    const timeout = await fx.tenant.api.patch('/account/canary', { timeout_seconds: 45 });
    expect(timeout.body).to.include({ enabled: true, interval_minutes: 15, timeout_seconds: 45, next_round_at: on.body.next_round_at });
    expect((await fx.tenant.api.get('/account/canary')).body).to.deep.equal(timeout.body);

    const off = await fx.tenant.api.patch('/account/canary', { enabled: false });
    expect(off.body).to.include({ enabled: false, interval_minutes: 15, timeout_seconds: 45, next_round_at: null });
  });

  for (const [what, body, field] of [
    ['interval_minutes 0', { interval_minutes: 0 }, 'interval_minutes'],
    ['interval_minutes 1441', { interval_minutes: 1441 }, 'interval_minutes'],
    ['interval_minutes 1.5', { interval_minutes: 1.5 }, 'interval_minutes'],
    ['timeout_seconds 9', { timeout_seconds: 9 }, 'timeout_seconds'],
    ['timeout_seconds 3601', { timeout_seconds: 3601 }, 'timeout_seconds'],
    ['timeout_seconds "60"', { timeout_seconds: '60' }, 'timeout_seconds'],
    ['enabled "yes"', { enabled: 'yes' }, 'enabled'],
    ['an unknown member', { enabled: true, rounds_run: 5 }, 'rounds_run'],
  ] as const) {
    it(`when PATCH sends ${what}, then it is a 400 naming ${field}, and nothing changes`, async () => {
      const reply = await fx.tenant.api.patch('/account/canary', body);
      expectError(reply, 400, 'validation_failed');
      expect(JSON.stringify(reply.body.error)).to.contain(field);
      expect((await fx.tenant.api.get('/account/canary')).body).to.include({ enabled: false, interval_minutes: 60, timeout_seconds: 300 });
    });
  }

  it('when a key lacks devices:read or devices:write, then it may not read or change the settings (403)', async () => {
    const reader = await fx.keyWith(['devices:read']);
    expect((await reader.get('/account/canary')).status).to.equal(200);
    expectError(await reader.patch('/account/canary', { enabled: true }), 403, 'forbidden');
    expectError(await reader.post('/account/canary/run', {}), 403, 'forbidden');
    const other = await fx.keyWith(['sms:read']);
    expectError(await other.get('/account/canary'), 403, 'forbidden');
  });

  it('when the account has fewer than two eligible SIMs, then running a round is a 409 saying what is missing, and no round is counted', async () => {
    const { device, token } = await fx.registerDevice('one SIM');
    await fx.tenant.api.patch(`/devices/${device.id}/settings`, { sim_numbers: { '0': '+79165550001' } });
    await fx.clients.device(device.id, token);
    const reply = await fx.tenant.api.post('/account/canary/run', {});
    expectError(reply, 409, 'conflict');
    expect(reply.body.error.message).to.contain('at least two eligible SIMs').and.contain('has 1');
    expect((await fx.tenant.api.get('/account/canary')).body.rounds_run).to.equal(0);

    const { device: silent } = await fx.registerDevice('offline');
    const again = await fx.tenant.api.post('/account/canary/run', {});
    expect(again.body.error.message).to.contain('1 device(s) offline');
    expect(silent.id).to.be.a('string');
  });
});
