// PATCH /api/ext/v1/devices/{id}/settings: partial update, 200 with the full device object and
// its queue, the 100-character name_custom limit, selected_sim values, the pacing settings
// (send_window, limits, quiet_hours, paused), and the errors 400 / 403 / 404.
import { expect } from 'chai';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { DEFAULT_PACING, detailFields, expectDevice, expectError, MALFORMED_IDS, UNKNOWN_ID } from '../support/expectations.ts';
import { updateDevices } from '../support/test-data.ts';

const SETTINGS = ['can_send_sms', 'selected_sim', 'notify_low_battery', 'forward_incoming_sms', 'record_calls', 'name_custom'] as const;
const PACING = ['send_window', 'limits', 'quiet_hours', 'paused_until', 'paused_reason'] as const;

describe('PATCH /api/ext/v1/devices/{id}/settings', () => {
  const fx = useGateway();
  let deviceId: string;
  const SYSTEM_NAME = 'Pixel 7';

  beforeEach(async () => {
    deviceId = (await fx.registerDevice(SYSTEM_NAME)).device.id;
  });

  const patch = (body: unknown, id = deviceId, owner: Tenant = fx.tenant) => owner.api.patch(`/devices/${id}/settings`, body);
  const read = async (id = deviceId, owner: Tenant = fx.tenant) => {
    const reply = await owner.api.get(`/devices/${id}`);
    expect(reply.status).to.equal(200);
    return reply.body;
  };
  /** The settings other than pacing as the device now has them. */
  const settingsOf = (device: Record<string, unknown>) => Object.fromEntries(SETTINGS.map((key) => [key, device[key]]));
  /** The pacing settings as the device now has them. */
  const pacingOf = (device: Record<string, unknown>) => Object.fromEntries(PACING.map((key) => [key, device[key]]));

  describe('when one field is sent', () => {
    const cases: [string, unknown][] = [
      ['can_send_sms', false],
      ['selected_sim', -2],
      ['selected_sim', -1],
      ['selected_sim', 0],
      ['selected_sim', 1],
      ['selected_sim', 2],
      ['notify_low_battery', true],
      ['forward_incoming_sms', false],
      ['record_calls', true],
      ['name_custom', 'Office phone'],
    ];
    for (const [field, value] of cases) {
      it(`then ${field} = ${JSON.stringify(value)} is answered 200 with the full device object, changed in that field only`, async () => {
        const before = await read();
        const reply = await patch({ [field]: value });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expectDevice(reply.body, { queue: true });
        expect(reply.body[field]).to.deep.equal(value);
        expect(settingsOf(reply.body)).to.deep.equal({ ...settingsOf(before), [field]: value });
        expect(pacingOf(reply.body), 'pacing unchanged').to.deep.equal(pacingOf(before));
        for (const key of ['id', 'type', 'name', 'is_online', 'is_charging', 'battery_level', 'sim_cards', 'created_at']) {
          expect(reply.body[key], key).to.deep.equal(before[key]);
        }
        expect(settingsOf(await read()), 'stored').to.deep.equal(settingsOf(reply.body));
      });
    }

    it('then each boolean can be switched back', async () => {
      await patch({ can_send_sms: false, notify_low_battery: true, forward_incoming_sms: true, record_calls: true });
      const reply = await patch({ can_send_sms: true, notify_low_battery: false, forward_incoming_sms: false, record_calls: false });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.include({ can_send_sms: true, notify_low_battery: false, forward_incoming_sms: false, record_calls: false });
    });
  });

  describe('when some fields are sent (partial update)', () => {
    it('then the fields not sent keep their values', async () => {
      await patch({ record_calls: true, name_custom: 'Kitchen' });
      const reply = await patch({ selected_sim: 1 });
      expect(reply.status).to.equal(200);
      expect(settingsOf(reply.body)).to.deep.equal({
        can_send_sms: true,
        selected_sim: 1,
        notify_low_battery: false,
        forward_incoming_sms: true,
        record_calls: true,
        name_custom: 'Kitchen',
      });
      expect(settingsOf(await read())).to.deep.equal(settingsOf(reply.body));
    });

    it('then every field at once is applied', async () => {
      const all = { can_send_sms: false, selected_sim: 0, notify_low_battery: true, forward_incoming_sms: true, record_calls: true, name_custom: 'All' };
      const reply = await patch(all);
      expect(reply.status).to.equal(200);
      expect(settingsOf(reply.body)).to.deep.equal(all);
    });

    it('then null for a setting is taken as not given, as generated clients send an unset field: nothing changes', async () => {
      const before = await read();
      const reply = await patch({ send_window: null, limits: null, selected_sim: null, can_send_sms: null, name_custom: null });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(settingsOf(reply.body)).to.deep.equal(settingsOf(before));
      expect(pacingOf(reply.body)).to.deep.equal(pacingOf(before));
    });

    it('then an empty object changes nothing and answers the device', async () => {
      const before = await read();
      const reply = await patch({});
      expect(reply.status).to.equal(200);
      expectDevice(reply.body, { queue: true });
      expect(settingsOf(reply.body)).to.deep.equal(settingsOf(before));
      expect(pacingOf(reply.body)).to.deep.equal(pacingOf(before));
    });
  });

  describe('when pacing is sent (send_window, limits, quiet_hours)', () => {
    it('then a new device shows the default pacing: window 5, 20 / 300 / 2000 a minute / hour / day, no quiet hours, never paused', async () => {
      expect(pacingOf(await read())).to.deep.equal(DEFAULT_PACING);
    });

    for (const window of [1, 50]) {
      it(`then send_window ${window} is applied, and nothing else changes`, async () => {
        const before = await read();
        const reply = await patch({ send_window: window });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expectDevice(reply.body, { queue: true });
        expect(reply.body.send_window).to.equal(window);
        expect(settingsOf(reply.body)).to.deep.equal(settingsOf(before));
        expect(reply.body.limits).to.deep.equal(before.limits);
        expect((await read()).send_window, 'stored').to.equal(window);
      });
    }

    it('then limits not sent keep their values, and null removes a limit', async () => {
      const reply = await patch({ limits: { per_minute: 5 } });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.limits).to.deep.equal({ per_minute: 5, per_hour: 300, per_day: 2000 });
      const lifted = await patch({ limits: { per_hour: null, per_day: null } });
      expect(lifted.body.limits).to.deep.equal({ per_minute: 5, per_hour: null, per_day: null });
      expect((await read()).limits, 'stored').to.deep.equal({ per_minute: 5, per_hour: null, per_day: null });
    });

    it('then quiet_hours are shown as set, and null removes them', async () => {
      const quiet = { from: '22:00', to: '07:30', timezone: 'Europe/Berlin' };
      const reply = await patch({ quiet_hours: quiet });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expectDevice(reply.body, { queue: true });
      expect(reply.body.quiet_hours).to.deep.equal(quiet);
      expect((await read()).quiet_hours, 'stored').to.deep.equal(quiet);
      expect((await patch({ quiet_hours: null })).body.quiet_hours).to.equal(null);
    });

    it('then the queue in the answer already follows the new settings', async () => {
      // Quiet from an hour ago until an hour from now, in UTC: the device may take nothing now.
      const hhmm = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(11, 16);
      const quiet = await patch({ quiet_hours: { from: hhmm(-3_600_000), to: hhmm(3_600_000), timezone: 'UTC' } });
      expect(quiet.body.queue.blocked_by).to.equal('quiet_hours');
      expect((await patch({ quiet_hours: null })).body.queue.blocked_by).to.equal(null);
      expect((await patch({ can_send_sms: false })).body.queue.blocked_by).to.equal('cannot_send');
    });

    it('then paused false is accepted on a device that is not paused, and changes nothing', async () => {
      const before = await read();
      const reply = await patch({ paused: false });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(pacingOf(reply.body)).to.deep.equal(pacingOf(before));
    });

    const refused: [string, Record<string, unknown>, string][] = [
      ['send_window 0', { send_window: 0 }, 'send_window'],
      ['send_window 51', { send_window: 51 }, 'send_window'],
      ['send_window 1.5', { send_window: 1.5 }, 'send_window'],
      ['send_window "5"', { send_window: '5' }, 'send_window'],
      ['a limit of 0', { limits: { per_minute: 0 } }, 'limits.per_minute'],
      ['a limit that is a string', { limits: { per_hour: '100' } }, 'limits.per_hour'],
      ['an unknown limit', { limits: { per_second: 1 } }, 'limits.per_second'],
      ['quiet_hours from 24:00', { quiet_hours: { from: '24:00', to: '07:00', timezone: 'UTC' } }, 'quiet_hours.from'],
      ['quiet_hours without a time zone', { quiet_hours: { from: '22:00', to: '07:00' } }, 'quiet_hours.timezone'],
      ['paused true', { paused: true }, 'paused'],
    ];
    for (const [name, body, field] of refused) {
      it(`then ${name} is a 400 naming ${field}, and nothing changes`, async () => {
        const before = await read();
        const reply = await patch({ ...body, record_calls: true });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        const after = await read();
        expect(pacingOf(after)).to.deep.equal(pacingOf(before));
        expect(after.record_calls).to.equal(false);
      });
    }

    for (const [name, quiet, field] of [
      ['a time zone that does not exist', { from: '22:00', to: '07:00', timezone: 'Mars/Olympus_Mons' }, 'quiet_hours.timezone'],
      ['from equal to to', { from: '22:00', to: '22:00', timezone: 'UTC' }, 'quiet_hours.to'],
    ] as const) {
      it(`then quiet_hours with ${name} is a 400 naming ${field}, and nothing changes`, async () => {
        const reply = await patch({ quiet_hours: quiet, record_calls: true });
        expectError(reply, 400, 'validation_failed');
        // Nested fields are named with dots, as everywhere else in the error model (limits.per_minute).
        expect(detailFields(reply)).to.include(field);
        expect(await read()).to.include({ quiet_hours: null, record_calls: false });
      });
    }
  });

  describe('when the device is online', () => {
    it('then the answer says so (is_online true)', async () => {
      fx.gateway.services.presence.markActive(deviceId, fx.tenant.accountId);
      const reply = await patch({ record_calls: true });
      expect(reply.status).to.equal(200);
      expect(reply.body.is_online).to.equal(true);
    });
  });

  describe('when name_custom is set', () => {
    it('then name keeps the system name', async () => {
      const reply = await patch({ name_custom: 'Mine' });
      expect(reply.body).to.include({ name: SYSTEM_NAME, name_custom: 'Mine' });
    });

    it('then an empty string resets it to the system name', async () => {
      await patch({ name_custom: 'Mine' });
      const reply = await patch({ name_custom: '' });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.include({ name: SYSTEM_NAME, name_custom: SYSTEM_NAME });
      expect((await read()).name_custom).to.equal(SYSTEM_NAME);
    });

    const accepted: [string, string][] = [
      ['100 Latin characters', 'a'.repeat(100)],
      ['100 Cyrillic characters', 'ж'.repeat(100)],
      ['100 emoji with a skin tone', '👍🏽'.repeat(100)],
      ['100 flags', '🇷🇺'.repeat(100)],
    ];
    for (const [name, value] of accepted) {
      it(`then ${name} are accepted and kept as sent`, async () => {
        const reply = await patch({ name_custom: value });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.name_custom).to.equal(value);
        expect((await read()).name_custom).to.equal(value);
      });
    }

    const refused: [string, string][] = [
      ['101 Latin characters', 'a'.repeat(101)],
      ['101 Cyrillic characters', 'ж'.repeat(101)],
      ['101 emoji with a skin tone', '👍🏽'.repeat(101)],
    ];
    for (const [name, value] of refused) {
      it(`then ${name} are refused with 400 naming name_custom, and nothing changes`, async () => {
        const reply = await patch({ name_custom: value, record_calls: true });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('name_custom');
        expect(reply.body.error.message).to.contain('100');
        expect(await read()).to.include({ name_custom: SYSTEM_NAME, record_calls: false });
      });
    }
  });

  describe('when selected_sim is outside -2..2 or not an integer', () => {
    for (const value of [-3, 3, 1.5, '1', true, 100]) {
      it(`then ${JSON.stringify(value)} is a 400 naming selected_sim, and nothing changes`, async () => {
        const reply = await patch({ selected_sim: value });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('selected_sim');
        expect((await read()).selected_sim).to.equal(-2);
      });
    }
  });

  describe('when a field is unknown', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['name', { name: 'renamed' }],
      ['is_online', { is_online: true }],
      ['battery_level', { battery_level: 5 }],
      ['id', { id: UNKNOWN_ID }],
      ['is_active', { is_active: false }],
      ['to_sim', { to_sim: 1 }],
    ];
    for (const [field, body] of cases) {
      it(`then ${field} is a 400 naming it, and the valid fields beside it are not applied`, async () => {
        const reply = await patch({ ...body, record_calls: true });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        expect((await read()).record_calls).to.equal(false);
      });
    }
  });

  describe('when a field has the wrong type', () => {
    const cases: [string, unknown][] = [
      ['can_send_sms', 'true'],
      ['can_send_sms', 1],
      ['notify_low_battery', 'yes'],
      ['forward_incoming_sms', 0],
      ['record_calls', []],
      ['name_custom', 5],
      ['name_custom', { text: 'x' }],
      ['name_custom', ['x']],
    ];
    for (const [field, value] of cases) {
      it(`then ${field} = ${JSON.stringify(value)} is a 400 naming ${field}`, async () => {
        const before = await read();
        const reply = await patch({ [field]: value });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include(field);
        expect(settingsOf(await read())).to.deep.equal(settingsOf(before));
      });
    }

    it('then several wrong fields are each named', async () => {
      const reply = await patch({ can_send_sms: 'no', selected_sim: 7, colour: 'red' });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include.members(['can_send_sms', 'selected_sim', 'colour']);
    });
  });

  describe('when the body is not a JSON object', () => {
    for (const [name, body] of [
      ['an array', []],
      ['an array of settings', [{ record_calls: true }]],
    ] as [string, unknown][]) {
      it(`then ${name} is a 400`, async () => {
        expectError(await patch(body), 400, 'validation_failed');
      });
    }

    it('then a missing body is a 400', async () => {
      expectError(await fx.tenant.api.request('PATCH', `/devices/${deviceId}/settings`), 400);
    });

    it('then malformed JSON is a 400 invalid_json', async () => {
      expectError(await patch('{"record_calls": tru'), 400, 'invalid_json');
    });
  });

  describe('when the id is not a UUID', () => {
    for (const id of MALFORMED_IDS) {
      it(`then "${id}" is a 400 invalid_id`, async () => {
        const reply = await patch({ record_calls: true }, encodeURIComponent(id));
        expectError(reply, 400, 'invalid_id');
        expect(detailFields(reply)).to.include('id');
      });
    }
  });

  describe('when the device does not exist for this account', () => {
    it('then an unknown device is a 404 device_not_found', async () => {
      expectError(await patch({ record_calls: true }, UNKNOWN_ID), 404, 'device_not_found');
    });

    it("then another account's device is a 404 device_not_found and is left unchanged", async () => {
      const other = await fx.newTenant();
      const theirs = (await registerDevice(fx.gateway, other)).device;
      expectError(await patch({ record_calls: true, name_custom: 'stolen' }, theirs.id), 404, 'device_not_found');
      expect(await read(theirs.id, other)).to.include({ record_calls: false, name_custom: theirs.name });
    });

    it('then a deleted device is a 404 device_not_found', async () => {
      expect((await fx.tenant.api.delete(`/devices/${deviceId}`)).status).to.equal(204);
      expectError(await patch({ record_calls: true }), 404, 'device_not_found');
    });
  });

  describe('when the key lacks devices:settings', () => {
    it('then it answers 403 forbidden and the device is left unchanged', async () => {
      const others = PERMISSIONS.filter((permission) => permission !== 'devices:settings');
      const key = await fx.keyWith(others);
      expectError(await key.patch(`/devices/${deviceId}/settings`, { record_calls: true }), 403, 'forbidden');
      expect((await read()).record_calls).to.equal(false);
    });

    it('then a key with only devices:settings may change settings', async () => {
      const key = await fx.keyWith(['devices:settings']);
      const reply = await key.patch(`/devices/${deviceId}/settings`, { record_calls: true });
      expect(reply.status).to.equal(200);
      expect(reply.body.record_calls).to.equal(true);
    });
  });

  describe('when a setting changes', () => {
    it('then updated_at moves forward and created_at stays', async () => {
      // Set the clock of the row back, so that "later" does not depend on how fast the test runs.
      const past = new Date('2020-01-01T00:00:00.000Z');
      await updateDevices(fx, deviceId, { updated_at: past });
      const before = await read();
      expect(before.updated_at).to.equal(past.toISOString());
      const requested = Date.now();
      const reply = await patch({ notify_low_battery: true });
      expect(reply.status).to.equal(200);
      expect(Date.parse(reply.body.updated_at)).to.be.at.least(requested - 1000);
      expect(Date.parse(reply.body.updated_at)).to.be.above(past.getTime());
      expect(reply.body.created_at).to.equal(before.created_at);
      expect((await read()).updated_at).to.equal(reply.body.updated_at);
    });
  });
});
