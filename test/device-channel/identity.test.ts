// One device, one session, whatever the case of its id (a UUID names the same device in upper
// and lower case): CONNECT, the access rules and presence compare device ids case-insensitively.
// A CONNECT for a device that already has a live session takes over: the old connection is
// closed, the new one is the device's only session, and the old one's close (and its last will)
// does not take the device offline. A device may write its id in any case in its own topics;
// the gateway routes on the canonical (lower-case) topic. Real mqtt.js clients, real gateway.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { RawClients, topic, type RawClient } from '../support/mqtt.ts';

const PREFIX = 'sms-gateway/v1/devices/';
const REFUSED = 128;
const PHONE = '+79161234567';

/** The device's topic with its id written exactly as given (no canonicalisation). */
const asWritten = (deviceId: string, kind: string) => `${PREFIX}${deviceId}/${kind}`;

describe('device channel: device identity (case-insensitive ids, one session per device)', () => {
  const fx = useGateway();


  /** MQTT connections the broker holds now (the mqtt_connected_clients gauge). */
  const sessions = () => fx.gateway.services.metrics.value('mqtt_connected_clients');

  /**
   * Connects as the device with the id written as given (client id and username), a last will
   * on its presence topic written the same way, and waits until the gateway has taken the
   * connection in (an UNSUBSCRIBE round trip, as RawClients.device does).
   */
  async function connectAs(writtenId: string, token: string, username = writtenId): Promise<RawClient> {
    const raw = await fx.clients.connect({
      clientId: writtenId,
      username,
      password: token,
      will: { topic: asWritten(writtenId, 'presence'), payload: Buffer.from('offline'), qos: 1, retain: true },
    });
    await raw.client.unsubscribeAsync(asWritten(writtenId, 'tasks'));
    return raw;
  }

  /** Subscribes to the device's task topic written as given; resolves once the gateway counts it ready. */
  async function subscribeTasks(raw: RawClient, deviceId: string, writtenId: string): Promise<void> {
    const ready = nextEvent(fx.gateway.channel, 'ready', (id) => id === deviceId);
    expect(await raw.subscribe(asWritten(writtenId, 'tasks')), `tasks of ${writtenId} granted`).to.deep.equal([1]);
    await ready;
  }

  async function shownOnline(deviceId: string): Promise<boolean> {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body.is_online;
  }

  const tasksOf = (raw: RawClient) => raw.messages.filter((message) => message.topic.toLowerCase().endsWith('/tasks')).map((message) => JSON.parse(message.payload).sms_id as string);

  describe('when a device with a live lower-case session connects again with its id in upper case', () => {
    it('then the old session is closed, every task reaches only the new one, and the device stays online with one session', async () => {
      const { device: row, token } = await fx.registerDevice();
      const upper = row.id.toUpperCase();
      const offline: string[] = [];
      const stopListening = fx.gateway.services.events.on('device.offline', ({ deviceId }) => void offline.push(deviceId));
      try {
        const before = sessions();
        const lower = await connectAs(row.id, token);
        await subscribeTasks(lower, row.id, row.id);
        expect(sessions(), 'one session before the takeover').to.equal(before + 1);

        const takeover = await connectAs(upper, token);
        await lower.whenClosed();
        // The device writes its id as it knows it, in its topics too.
        await subscribeTasks(takeover, row.id, upper);
        expect(sessions(), 'one session after the takeover').to.equal(before + 1);
        expect(takeover.closed, 'the new session is open').to.equal(false);
        expect(fx.gateway.services.presence.isOnline(row.id), 'online after the old session closed').to.equal(true);
        expect(await shownOnline(row.id), 'is_online after the old session closed').to.equal(true);

        // Every SMS goes to the device (its only one), and its task reaches the new session once.
        const sent: string[] = [];
        for (let i = 0; i < 3; i++) {
          const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: `after takeover ${i}` });
          expect(created.status, JSON.stringify(created.body)).to.equal(201);
          sent.push(created.body.id);
          await takeover.nextMessage((message) => message.topic.toLowerCase().endsWith('/tasks') && JSON.parse(message.payload).sms_id === created.body.id);
          expect((await fx.tenant.api.get(`/sms/${created.body.id}`)).body.device_id).to.equal(row.id);
        }
        // Its reports, on its topic written in upper case, are consumed (QoS 2: PUBCOMP after commit).
        for (const smsId of sent) await takeover.publish(asWritten(upper, 'status'), JSON.stringify({ sms_id: smsId, status: 'sent' }));
        for (const smsId of sent) expect((await fx.tenant.api.get(`/sms/${smsId}`)).body.status, `status of ${smsId}`).to.equal('sent');

        expect(tasksOf(takeover).filter((id) => sent.includes(id)).sort(), 'each task once on the new session').to.deep.equal([...sent].sort());
        expect(tasksOf(lower), 'nothing on the old session').to.deep.equal([]);
        expect(offline, 'never offline').to.deep.equal([]);
        expect(fx.gateway.services.presence.isOnline(row.id)).to.equal(true);
        expect(sessions(), 'still one session').to.equal(before + 1);
      } finally {
        stopListening();
      }
    });
  });

  describe('when a device with a live upper-case session connects again in lower case', () => {
    it('then the lower-case connection takes over, and the upper-case one\'s close does not take the device offline', async () => {
      const { device: row, token } = await fx.registerDevice();
      const upper = row.id.toUpperCase();
      const first = await connectAs(upper, token);
      await subscribeTasks(first, row.id, upper);
      const offline: string[] = [];
      const stopListening = fx.gateway.services.events.on('device.offline', ({ deviceId }) => void offline.push(deviceId));
      try {
        const second = await connectAs(row.id, token);
        await first.whenClosed();
        await subscribeTasks(second, row.id, row.id);
        const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'to the lower-case session' });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        await second.nextMessage((message) => message.topic === topic(row.id, 'tasks') && JSON.parse(message.payload).sms_id === created.body.id);
        expect((await fx.tenant.api.get(`/sms/${created.body.id}`)).body.device_id).to.equal(row.id);
        expect(tasksOf(first)).to.deep.equal([]);
        expect(offline, 'no offline event for a takeover').to.deep.equal([]);
        expect(await shownOnline(row.id)).to.equal(true);

        // The device's only session ending does take it offline.
        const down = nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === row.id, 2_000);
        await second.client.endAsync();
        await down;
        expect(await shownOnline(row.id)).to.equal(false);
      } finally {
        stopListening();
      }
    });
  });

  describe('when a device with a live session connects again with the same client id', () => {
    it('then the new connection takes over without the device going offline', async () => {
      const { device: row, token } = await fx.registerDevice();
      const first = await connectAs(row.id, token);
      await subscribeTasks(first, row.id, row.id);
      const offline: string[] = [];
      const stopListening = fx.gateway.services.events.on('device.offline', ({ deviceId }) => void offline.push(deviceId));
      try {
        const second = await connectAs(row.id, token);
        await first.whenClosed();
        await subscribeTasks(second, row.id, row.id);
        expect(offline, 'no offline event for a takeover').to.deep.equal([]);
        expect(fx.gateway.services.presence.isOnline(row.id)).to.equal(true);
        expect(second.closed).to.equal(false);
      } finally {
        stopListening();
      }
    });
  });

  describe('when client id and username differ only in case', () => {
    it('then the CONNECT is accepted as that device', async () => {
      const { device: row, token } = await fx.registerDevice();
      const mqtt = await connectAs(row.id.toUpperCase(), token, row.id);
      expect(mqtt.closed).to.equal(false);
      expect(fx.gateway.services.presence.isOnline(row.id)).to.equal(true);
      expect(fx.gateway.services.presence.isOnline(row.id.toUpperCase()), 'presence compares ids case-insensitively').to.equal(true);
    });
  });

  describe('when a device writes another device\'s id in upper case', () => {
    it('then subscribing is refused and publishing closes its connection, as in lower case', async () => {
      const me = await fx.registerDevice();
      const other = await fx.registerDevice();
      const mqtt = await connectAs(me.device.id.toUpperCase(), me.token);
      const otherUpper = other.device.id.toUpperCase();
      expect(await mqtt.subscribe([asWritten(otherUpper, 'tasks'), `${PREFIX}${otherUpper}/#`, asWritten(me.device.id.toUpperCase(), 'settings')])).to.deep.equal([
        REFUSED,
        REFUSED,
        1,
      ]);
      mqtt.client.publish(asWritten(otherUpper, 'heartbeat'), JSON.stringify({ battery_level: 5, is_charging: false, sim_cards: [] }), { qos: 1 }, () => undefined);
      await mqtt.whenClosed();
      const read = await fx.tenant.api.get(`/devices/${other.device.id}`);
      expect(read.body.battery_level, 'the other device is untouched').to.equal(null);
    });
  });

  describe('when an operator names a device in upper case', () => {
    it('then its subscription is granted and it sees the device\'s messages', async () => {
      const { device: row, token } = await fx.registerDevice();
      const watcher = await fx.clients.connect({ clientId: `operator-${row.id.slice(0, 8)}`, username: 'watcher', password: fx.tenant.key });
      expect(await watcher.subscribe(asWritten(row.id.toUpperCase(), 'heartbeat'))).to.deep.equal([1]);
      const device = await connectAs(row.id.toUpperCase(), token);
      await device.publish(asWritten(row.id.toUpperCase(), 'heartbeat'), JSON.stringify({ battery_level: 64, is_charging: false, sim_cards: [] }));
      const seen = await watcher.nextMessage((message) => message.topic.toLowerCase() === topic(row.id, 'heartbeat'));
      expect(JSON.parse(seen.payload).battery_level).to.equal(64);
    });
  });
});
