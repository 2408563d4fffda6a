// Who may connect to the broker and what each connection may read and write: a device cannot
// read or write another device's topics; an operator key sees its account's topics and no
// other's. Raw mqtt.js clients, so every packet is the test's own.
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { topic, type RawClient } from '../support/mqtt.ts';

const AUTH_FAILURES = 'mqtt_auth_failures_total';
const NOT_AUTHORIZED = 5;
const REFUSED = 128;
const PREFIX = 'sms-gateway/v1/devices/';

const heartbeat = (battery: number) => JSON.stringify({ battery_level: battery, is_charging: false, sim_cards: [{ index: 0, name_operator: 'Op' }] });

describe('device channel: authorization', () => {
  const fx = useGateway();


  async function onlineDevice(owner: Tenant = fx.tenant): Promise<{ id: string; token: string; mqtt: RawClient }> {
    const { device, token } = await registerDevice(fx.gateway, owner);
    return { id: device.id, token, mqtt: await fx.clients.device(device.id, token) };
  }

  const failures = (reason: string) => fx.gateway.services.metrics.value(AUTH_FAILURES, { reason });
  const operatorId = () => `operator-${randomBytes(4).toString('hex')}`;

  describe('when a device subscribes to topics that are not its own', () => {
    it('then its own topics are granted and another device\'s topics, $SYS/# and # are refused with 128', async () => {
      const me = await onlineDevice();
      const other = await onlineDevice();
      const granted = await me.mqtt.subscribe([
        topic(me.id, 'tasks'),
        topic(other.id, 'tasks'),
        topic(other.id, 'status'),
        `${PREFIX}${other.id}/#`,
        `${PREFIX}+/tasks`,
        '$SYS/#',
        '#',
      ]);
      expect(granted).to.deep.equal([1, REFUSED, REFUSED, REFUSED, REFUSED, REFUSED, REFUSED]);
      expect(me.mqtt.closed).to.equal(false);
    });

    it('then nothing the other device publishes reaches it', async () => {
      const me = await onlineDevice();
      const other = await onlineDevice();
      expect(await me.mqtt.subscribe(['#', `${PREFIX}${other.id}/heartbeat`, topic(me.id, 'heartbeat')])).to.deep.equal([REFUSED, REFUSED, 1]);
      await other.mqtt.publish(topic(other.id, 'heartbeat'), heartbeat(11), { retain: true });
      // Its own heartbeat, published after the other's, comes back: by then the other's would have too.
      await me.mqtt.publish(topic(me.id, 'heartbeat'), heartbeat(22), { retain: true });
      await me.mqtt.nextMessage((message) => message.topic === topic(me.id, 'heartbeat'));
      expect(me.mqtt.messages.map((message) => message.topic)).to.deep.equal([topic(me.id, 'heartbeat')]);
    });
  });

  describe('when a device publishes to another device\'s status topic', () => {
    it('then its connection is closed and the other device\'s SMS stays as it was', async () => {
      const attacker = await onlineDevice();
      const victim = await onlineDevice();
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'not yours', device_id: victim.id });
      expect(created.status).to.equal(201);
      const smsId: string = created.body.id;
      const before = await fx.tenant.api.get(`/sms/${smsId}`);
      expect(before.body.status).to.equal('pending');
      expect(await victim.mqtt.subscribe(topic(victim.id, 'status'))).to.deep.equal([1]);

      attacker.mqtt.client.publish(topic(victim.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'delivered' }), { qos: 1 }, () => undefined);
      await attacker.mqtt.whenClosed();

      // The victim's own report (for no SMS of its own) passes the same path after the refused one.
      await victim.mqtt.publish(topic(victim.id, 'status'), JSON.stringify({ sms_id: randomUUID(), status: 'sent' }));
      await victim.mqtt.nextMessage((message) => message.payload.includes('"sent"'));
      expect(victim.mqtt.messages.map((message) => JSON.parse(message.payload).status), 'the refused report reached nobody').to.deep.equal(['sent']);
      const after = await fx.tenant.api.get(`/sms/${smsId}`);
      expect(after.body).to.deep.equal(before.body);
      expect(victim.mqtt.closed).to.equal(false);
    });
  });

  describe('when a device connects with wrong credentials', () => {
    it('then a wrong password gets CONNACK "not authorized" (5) and is counted', async () => {
      const { device } = await fx.registerDevice();
      const counted = failures('bad_device_credentials');
      const error = await fx.clients.refused({ clientId: device.id, username: device.id, password: 'sgd_wrong' });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('bad_device_credentials')).to.equal(counted + 1);
      expect(fx.gateway.services.presence.isOnline(device.id)).to.equal(false);
    });

    it('then an unknown device id gets CONNACK "not authorized" (5) and is counted', async () => {
      const { token } = await fx.registerDevice();
      const unknown = randomUUID();
      const counted = failures('bad_device_credentials');
      const error = await fx.clients.refused({ clientId: unknown, username: unknown, password: token });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('bad_device_credentials')).to.equal(counted + 1);
    });

    it('then a client id other than the username is refused, and does not take over that client id\'s session', async () => {
      const me = await fx.registerDevice();
      const victim = await onlineDevice();
      const counted = failures('bad_client_id');
      const error = await fx.clients.refused({ clientId: victim.id, username: me.device.id, password: me.token });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('bad_client_id')).to.equal(counted + 1);
      expect(victim.mqtt.closed, 'the device whose client id was named keeps its connection').to.equal(false);
      expect(fx.gateway.services.presence.isOnline(victim.id)).to.equal(true);
    });
  });

  describe('when a device is deleted through DELETE /api/ext/v1/devices/{id}', () => {
    it('then its connection is closed at once, it is offline, and it cannot connect again', async () => {
      const phone = await onlineDevice();
      expect(fx.gateway.services.presence.isOnline(phone.id)).to.equal(true);
      const deleted = await fx.tenant.api.delete(`/devices/${phone.id}`);
      expect(deleted.status, JSON.stringify(deleted.body)).to.be.within(200, 299);
      expect(fx.gateway.services.presence.isOnline(phone.id)).to.equal(false);
      await phone.mqtt.whenClosed(1_000);

      const counted = failures('bad_device_credentials');
      const error = await fx.clients.refused({ clientId: phone.id, username: phone.id, password: phone.token });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('bad_device_credentials')).to.equal(counted + 1);
      expect(fx.gateway.services.presence.isOnline(phone.id)).to.equal(false);
    });
  });

  describe('when an operator connects with an API key holding devices:monitor', () => {
    it('then subscribed to sms-gateway/v1/devices/# it gets its own account\'s heartbeats and not another account\'s', async () => {
      const other = await fx.newTenant();
      const mine = await onlineDevice();
      const theirs = await onlineDevice(other);
      await mine.mqtt.publish(topic(mine.id, 'heartbeat'), heartbeat(41), { retain: true });
      await theirs.mqtt.publish(topic(theirs.id, 'heartbeat'), heartbeat(51), { retain: true });

      const operator = await fx.clients.connect({ clientId: operatorId(), username: 'anyone', password: fx.tenant.key });
      expect(await operator.subscribe(`${PREFIX}#`)).to.deep.equal([1]);
      const retained = await operator.nextMessage((message) => message.topic === topic(mine.id, 'heartbeat'));
      expect(JSON.parse(retained.payload).battery_level).to.equal(41);

      await theirs.mqtt.publish(topic(theirs.id, 'heartbeat'), heartbeat(52), { retain: true });
      await mine.mqtt.publish(topic(mine.id, 'heartbeat'), heartbeat(42), { retain: true });
      await operator.nextMessage((message) => message.topic === topic(mine.id, 'heartbeat') && JSON.parse(message.payload).battery_level === 42);
      const seen = operator.messages.map((message) => message.topic.slice(PREFIX.length).split('/')[0]);
      expect(seen.length).to.be.above(0);
      expect(seen.every((deviceId) => deviceId === mine.id), `the operator saw ${JSON.stringify(operator.messages)}`).to.equal(true);
      expect(operator.closed).to.equal(false);
    });

    it('then a filter naming another account\'s device is refused with 128, one naming its own is granted', async () => {
      const other = await fx.newTenant();
      const mine = await onlineDevice();
      const theirs = await onlineDevice(other);
      const operator = await fx.clients.connect({ clientId: operatorId(), username: 'anyone', password: fx.tenant.key });
      const granted = await operator.subscribe([
        `${PREFIX}${mine.id}/#`,
        `${PREFIX}${theirs.id}/heartbeat`,
        `${PREFIX}${theirs.id}/#`,
        '$SYS/#',
        '#',
      ]);
      expect(granted).to.deep.equal([1, REFUSED, REFUSED, REFUSED, REFUSED]);
    });

    it('then its publish closes its connection and reaches no device', async () => {
      const mine = await onlineDevice();
      expect(await mine.mqtt.subscribe(topic(mine.id, 'tasks'))).to.deep.equal([1]);
      const operator = await fx.clients.connect({ clientId: operatorId(), username: 'anyone', password: fx.tenant.key });
      const task = { sms_id: randomUUID(), phone: '+79161234567', message: 'forged', sim: -2, created_at: new Date().toISOString() };
      operator.client.publish(topic(mine.id, 'tasks'), JSON.stringify(task), { qos: 1 }, () => undefined);
      await operator.whenClosed();
      // A task the gateway publishes afterwards arrives; the forged one never did.
      await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'real', device_id: mine.id });
      const real = await mine.mqtt.nextMessage((message) => message.topic === topic(mine.id, 'tasks'));
      expect(JSON.parse(real.payload).message).to.equal('real');
      expect(mine.mqtt.messages.filter((message) => message.topic === topic(mine.id, 'tasks'))).to.have.length(1);
    });
  });

  describe('when an operator connects with an API key without devices:monitor', () => {
    it('then it is refused at CONNECT with "not authorized" (5) and counted', async () => {
      const reader = await fx.keyWith(['devices:read', 'sms:read']);
      const counted = failures('missing_devices_monitor');
      const error = await fx.clients.refused({ clientId: operatorId(), username: 'anyone', password: reader.key! });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('missing_devices_monitor')).to.equal(counted + 1);
    });

    it('then a password that is no API key is refused too', async () => {
      const counted = failures('bad_api_key');
      const error = await fx.clients.refused({ clientId: operatorId(), username: 'anyone', password: 'sgw_not_a_key' });
      expect(error.code).to.equal(NOT_AUTHORIZED);
      expect(failures('bad_api_key')).to.equal(counted + 1);
    });
  });
});
