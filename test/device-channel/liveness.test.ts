// Liveness and what devices report about themselves: is_online while connected and active
// within DEVICE_OFFLINE_AFTER; last will, clean stop and revocation make it false at once, a
// takeover does not; heartbeats update the device; settings are pushed on connect and on every
// PATCH.
import { expect } from 'chai';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { mqttUrl, topic } from '../support/mqtt.ts';

const SETTINGS_KEYS = ['can_send_sms', 'selected_sim', 'notify_low_battery', 'forward_incoming_sms', 'record_calls', 'name_custom', 'send_window', 'limits', 'quiet_hours', 'send_jitter', 'max_send_attempts'];
/** The pacing a new device is pushed, for its information (the gateway enforces it whatever the phone does). */
const DEFAULT_PACING = { send_window: 5, limits: { per_minute: 20, per_hour: 300, per_day: 2000 }, quiet_hours: null, send_jitter: null, max_send_attempts: null };

describe('device channel: liveness', () => {
  const fx = useGateway();

  function device(options = {}) {
    return fx.connectDevice(options);
  }

  async function shown(deviceId: string): Promise<any> {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  }

  const wentOffline = (deviceId: string, timeoutMs: number) => nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === deviceId, timeoutMs);

  describe('when a device connects', () => {
    it('then GET /devices/{id} shows it online, and it was offline before', async () => {
      const { device: row, token } = await fx.registerDevice();
      expect((await shown(row.id)).is_online).to.equal(false);
      const phone = new SimulatedDevice({ brokerUrl: mqttUrl(fx.gateway), deviceId: row.id, token, reconnectPeriodMs: 100 });
      fx.track(phone);
      await phone.connect();
      expect((await shown(row.id)).is_online).to.equal(true);
    });
  });

  describe('when a device dies without DISCONNECT (its last will)', () => {
    it('then it is offline within a second, and stays offline once its will has been handled', async () => {
      const phone = await device();
      // An operator watching the presence topic sees the will: by then the gateway has taken it in.
      const watcher = await fx.clients.connect({ clientId: `operator-${phone.id.slice(0, 8)}`, username: 'watcher', password: fx.tenant.key });
      expect(await watcher.subscribe(topic(phone.id, 'presence'))).to.deep.equal([1]);
      await watcher.nextMessage((message) => message.payload === 'online');
      const offline = wentOffline(phone.id, 1_000);
      await phone.kill();
      await offline;
      await watcher.nextMessage((message) => message.payload === 'offline');
      expect(phone.connected).to.equal(false);
      expect(fx.gateway.services.presence.isOnline(phone.id), 'presence after the will').to.equal(false);
      expect((await shown(phone.id)).is_online, 'is_online after the will').to.equal(false);
    });
  });

  describe('when a device disconnects cleanly', () => {
    it('then it is offline at once', async () => {
      const phone = await device();
      const offline = wentOffline(phone.id, 1_000);
      await phone.stop();
      await offline;
      expect((await shown(phone.id)).is_online).to.equal(false);
    });
  });

  describe('when a second connection takes over the device\'s client id', () => {
    it('then the device stays online and its old connection\'s will does not take it offline', async () => {
      const { device: row, token } = await fx.registerDevice();
      const first = await fx.clients.device(row.id, token);
      const second = await fx.clients.device(row.id, token);
      await first.whenClosed();
      await second.publish(topic(row.id, 'presence'), 'online', { retain: true });
      await second.publish(topic(row.id, 'heartbeat'), JSON.stringify({ battery_level: 70, is_charging: false, sim_cards: [] }));
      expect(fx.gateway.services.presence.isOnline(row.id)).to.equal(true);
      expect((await shown(row.id)).is_online).to.equal(true);
      expect(second.closed).to.equal(false);

      // The device that took over is the one the gateway talks to now: it claims the next SMS.
      expect(await second.subscribe(topic(row.id, 'tasks'))).to.deep.equal([1]);
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'after takeover' });
      expect(created.body.device_id).to.equal(null);
      const task = await second.nextMessage((message) => message.topic === topic(row.id, 'tasks'));
      expect(JSON.parse(task.payload).sms_id).to.equal(created.body.id);
      expect((await fx.tenant.api.get(`/sms/${created.body.id}`)).body.device_id).to.equal(row.id);
    });
  });

  describe('when a connected device shows no activity for DEVICE_OFFLINE_AFTER', () => {
    it('then it counts as offline, though still connected', async () => {
      const phone = await device();
      const offlineAfter = fx.gateway.config.deviceOfflineAfterMs;
      const { presence } = fx.gateway.services;
      const now = Date.now();
      expect(presence.isOnline(phone.id, now)).to.equal(true);
      expect(presence.isOnline(phone.id, now + offlineAfter - 1_000), 'just before the limit').to.equal(true);
      expect(presence.isOnline(phone.id, now + offlineAfter + 1), 'past the limit').to.equal(false);
      expect(presence.onlineDevices(fx.tenant.accountId, now + offlineAfter + 1)).to.deep.equal([]);
      expect(phone.connected).to.equal(true);
    });

    it('then activity (a heartbeat) moves the limit forward', async () => {
      const { device: row, token } = await fx.registerDevice();
      const mqtt = await fx.clients.device(row.id, token);
      const offlineAfter = fx.gateway.config.deviceOfflineAfterMs;
      const { presence } = fx.gateway.services;
      const connectedBy = Date.now();
      // Pretend the connect was long ago, then let the device speak.
      presence.markActive(row.id, fx.tenant.accountId, connectedBy - offlineAfter - 1);
      expect(presence.isOnline(row.id), 'no activity for longer than the limit').to.equal(false);
      await mqtt.publish(topic(row.id, 'heartbeat'), JSON.stringify({ battery_level: 70, is_charging: false, sim_cards: [] }));
      expect(presence.isOnline(row.id)).to.equal(true);
      expect((await shown(row.id)).is_online).to.equal(true);
    });
  });

  describe('when a device sends a heartbeat', () => {
    it('then battery_level, is_charging, sim_cards, type and name follow it, and updated_at moves', async () => {
      const { device: row, token } = await fx.registerDevice('registered-name');
      const before = await shown(row.id);
      const mqtt = await fx.clients.device(row.id, token);
      const sims = [
        { index: 0, name_operator: 'Beeline' },
        { index: 1, name_operator: 'MTS' },
      ];
      await mqtt.publish(
        topic(row.id, 'heartbeat'),
        JSON.stringify({ battery_level: 42, is_charging: true, sim_cards: sims, type: 'android-tablet', name: 'Pixel 9', app_version: '2.1.0' }),
        { retain: true },
      );
      const after = await shown(row.id);
      expect(after).to.include({ battery_level: 42, is_charging: true, type: 'android-tablet', name: 'Pixel 9', name_custom: 'registered-name' });
      // The API adds each SIM's number, which this phone does not report.
      const shownSims = sims.map((sim) => ({ ...sim, phone_number: null, phone_number_source: null }));
      expect(after.sim_cards).to.deep.equal(shownSims);
      expect(new Date(after.updated_at).getTime()).to.be.above(new Date(before.updated_at).getTime());

      await mqtt.publish(topic(row.id, 'heartbeat'), JSON.stringify({ battery_level: 41, is_charging: false, sim_cards: [sims[1]] }), { retain: true });
      const later = await shown(row.id);
      expect(later).to.include({ battery_level: 41, is_charging: false, type: 'android-tablet', name: 'Pixel 9' });
      expect(later.sim_cards).to.deep.equal([shownSims[1]]);
      expect(new Date(later.updated_at).getTime()).to.be.at.least(new Date(after.updated_at).getTime());
    });

    it('then a custom name set through the API is kept', async () => {
      const { device: row, token } = await fx.registerDevice();
      await fx.tenant.api.patch(`/devices/${row.id}/settings`, { name_custom: 'Front desk' });
      const mqtt = await fx.clients.device(row.id, token);
      await mqtt.publish(topic(row.id, 'heartbeat'), JSON.stringify({ battery_level: 90, is_charging: false, sim_cards: [], name: 'Pixel 9' }));
      expect(await shown(row.id)).to.include({ name: 'Pixel 9', name_custom: 'Front desk' });
    });
  });

  describe('when settings are PATCHed while the device is online', () => {
    it('then the new settings are pushed to the device', async () => {
      const phone = await device();
      const pushed = nextEvent(phone, 'settings', (settings: Record<string, unknown>) => settings.forward_incoming_sms === false);
      const reply = await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: false, selected_sim: 1, name_custom: 'Shop' });
      expect(reply.status).to.equal(200);
      const [settings] = await pushed;
      expect(Object.keys(settings)).to.have.members(SETTINGS_KEYS);
      expect(settings).to.deep.equal({
        can_send_sms: true,
        selected_sim: 1,
        notify_low_battery: false,
        forward_incoming_sms: false,
        record_calls: false,
        name_custom: 'Shop',
        ...DEFAULT_PACING,
      });
    });

    it('then new pacing is pushed to the device too', async () => {
      const phone = await device();
      const pushed = nextEvent(phone, 'settings', (settings: Record<string, unknown>) => settings.send_window === 2);
      const quiet = { from: '23:00', to: '06:00', timezone: 'Europe/Moscow' };
      const reply = await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { send_window: 2, limits: { per_hour: 100, per_day: null }, quiet_hours: quiet });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      const [settings] = await pushed;
      expect(settings).to.deep.include({ send_window: 2, limits: { per_minute: 20, per_hour: 100, per_day: null }, quiet_hours: quiet });
    });
  });

  describe('when a device whose settings were never changed connects', () => {
    it('then it gets its settings all the same (nothing was retained for it before)', async () => {
      const { device: row, token } = await fx.registerDevice('new-phone');
      const phone = new SimulatedDevice({ brokerUrl: mqttUrl(fx.gateway), deviceId: row.id, token, reconnectPeriodMs: 100 });
      fx.track(phone);
      const pushed = nextEvent(phone, 'settings');
      await phone.connect();
      const [settings] = await pushed;
      expect(settings).to.deep.equal({
        can_send_sms: true,
        selected_sim: -2,
        notify_low_battery: false,
        forward_incoming_sms: true,
        record_calls: false,
        name_custom: 'new-phone',
        ...DEFAULT_PACING,
      });
    });
  });

  describe('when settings were changed while the device was away', () => {
    it('then they are pushed when it connects', async () => {
      const { device: row, token } = await fx.registerDevice('away-phone');
      const reply = await fx.tenant.api.patch(`/devices/${row.id}/settings`, { can_send_sms: false, record_calls: true, notify_low_battery: true });
      expect(reply.status).to.equal(200);
      const phone = new SimulatedDevice({ brokerUrl: mqttUrl(fx.gateway), deviceId: row.id, token, reconnectPeriodMs: 100 });
      fx.track(phone);
      const pushed = nextEvent(phone, 'settings');
      await phone.connect();
      const [settings] = await pushed;
      expect(settings).to.deep.equal({
        can_send_sms: false,
        selected_sim: -2,
        notify_low_battery: true,
        forward_incoming_sms: true,
        record_calls: true,
        name_custom: 'away-phone',
        ...DEFAULT_PACING,
      });
    });
  });
});
