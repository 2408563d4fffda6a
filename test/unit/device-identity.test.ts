// broker/identity.ts: a connected device's identity keeps a small frozen record of its row, with
// what the connection reads later, whether the row came from CONNECT or from a heartbeat.
import { expect } from 'chai';
import { DeviceIdentity } from '../../broker/identity.ts';
import { settingsOf } from '../../broker/forward.ts';
import type { DeviceRecord } from '../../broker/ports.ts';

const ID = '0f3c2b1a-9d8e-4f70-a1b2-c3d4e5f60718';

/** A row as the devices table answers it: more columns than the connection reads. */
function row(battery: number): DeviceRecord & Record<string, unknown> {
  return {
    id: ID, object_id: 'obj_1', account_id: 'acc-1', token_hash: 'hash-1', name: 'Pixel', name_custom: null, group_name: null, type: 'android', app_version: '1.0',
    can_send_sms: true, selected_sim: 1, notify_low_battery: true, forward_incoming_sms: false, record_calls: true, battery_level: battery,
    signal_percent: 70, incoming_held: null, capabilities: { sms: true }, radio: { can_send: true }, is_charging: false,
    sim_cards: [{ slot: 1, carrier: 'X' }] as unknown as DeviceRecord['sim_cards'], sim_numbers: {}, sim_limits: {},
    send_window: 5, limit_per_minute: 10, limit_per_hour: null, limit_per_day: 500, quiet_hours: { from: '22:00', to: '07:00', timezone: 'UTC' },
    consecutive_failures: 0, paused_until: null, paused_reason: null, max_send_attempts: 3, send_jitter: null,
    last_seen_at: new Date(), created_at: new Date(), updated_at: new Date(), deleted_at: null,
  };
}

const KEPT = ['id', 'account_id', 'token_hash', 'name', 'name_custom', 'can_send_sms', 'selected_sim', 'notify_low_battery', 'forward_incoming_sms', 'record_calls', 'battery_level', 'sim_cards', 'send_window', 'limit_per_minute', 'limit_per_hour', 'limit_per_day', 'quiet_hours', 'send_jitter', 'max_send_attempts'];

describe('unit: what a connected device\'s identity keeps of its row', () => {
  it('when made at CONNECT, then it keeps a frozen record of the fields read later, giving the same settings', () => {
    const connected = row(80);
    const identity = new DeviceIdentity(ID, 'acc-1', 'hash-1', connected);
    expect(Object.keys(identity.device).sort()).to.deep.equal([...KEPT].sort());
    expect(Object.isFrozen(identity.device)).to.equal(true);
    expect(settingsOf(identity.device)).to.deep.equal(settingsOf(connected));
    expect(identity.device.sim_cards).to.equal(connected.sim_cards);
  });

  it('when a heartbeat\'s row replaces it, then the record is made anew from that row, as small', () => {
    const identity = new DeviceIdentity(ID, 'acc-1', 'hash-1', row(80));
    identity.device = row(12);
    expect(identity.device.battery_level).to.equal(12);
    expect(Object.keys(identity.device).sort()).to.deep.equal([...KEPT].sort());
    expect(Object.isFrozen(identity.device)).to.equal(true);
    expect(identity).to.include({ kind: 'device', deviceId: ID, accountId: 'acc-1', tokenHash: 'hash-1' });
  });
});
