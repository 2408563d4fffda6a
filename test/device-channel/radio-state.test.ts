// What a heartbeat says of the device's radio (radio: can_send, problem, detail): stored with the
// device and shown by GET /devices and /devices/{id}; a device whose radio cannot send is handed no
// new work (SMS named for it wait, pool SMS go to other devices) until a heartbeat says it can
// again. A malformed radio is dropped, counted and logged, and the rest of the heartbeat applies;
// a device that never says behaves as before.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { nextEvent } from '../support/devices.ts';
import { deviceRow } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';
const HEARTBEAT = { battery_level: 64, is_charging: true, sim_cards: [] };
const PHONE = '+79161234567';
const DOWN = { can_send: false, problem: 'termux_api_unresponsive', detail: 'termux-battery-status: no answer within 20 s' };

describe('device channel: the radio state in heartbeats', () => {
  const fx = useGateway();

  async function connected(name = 'radio'): Promise<{ id: string; mqtt: RawClient }> {
    const { device, token } = await fx.registerDevice(name);
    const mqtt = await fx.clients.device(device.id, token);
    await mqtt.subscribe(topic(device.id, 'tasks'), 1);
    return { id: device.id, mqtt };
  }

  /** QoS 2: applied once the publish completes. */
  const heartbeat = (phone: { id: string; mqtt: RawClient }, body: object) => phone.mqtt.publish(topic(phone.id, 'heartbeat'), JSON.stringify(body));
  const tasksOf = (phone: { id: string; mqtt: RawClient }) => phone.mqtt.messages.filter((message) => message.topic === topic(phone.id, 'tasks'));

  it('when a device never says, then radio is null', async () => {
    const phone = await connected();
    await heartbeat(phone, HEARTBEAT);
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.radio).to.equal(null);
  });

  it('when a heartbeat says it, then it is stored with when it came and shown by GET /devices/{id} and GET /devices', async () => {
    const phone = await connected();
    const before = Date.now();
    await heartbeat(phone, { ...HEARTBEAT, radio: DOWN });
    const shown = (await fx.tenant.api.get(`/devices/${phone.id}`)).body;
    expect(shown.radio).to.include(DOWN);
    expect(Date.parse(shown.radio.reported_at)).to.be.at.least(before - 1000);
    expect(shown.queue.blocked_by).to.equal('radio');
    const listed = (await fx.tenant.api.get('/devices')).body.data.find((device: { id: string }) => device.id === phone.id);
    expect(listed.radio).to.deep.equal(shown.radio);
    expect((await deviceRow(fx, phone.id))!.radio).to.include(DOWN);

    await heartbeat(phone, { ...HEARTBEAT, radio: { can_send: true } });
    expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body.radio).to.include({ can_send: true, problem: null, detail: null });
  });

  for (const [what, bad] of [
    ['can_send missing', { problem: 'no_sim' }],
    ['can_send a string', { can_send: 'no' }],
    ['an unknown field', { can_send: false, extra: 1 }],
    ['problem not a word', { can_send: false, problem: 'No SIM!' }],
    ['detail too long', { can_send: false, detail: 'x'.repeat(301) }],
    ['not an object', 'broken'],
  ] as const) {
    it(`when the radio has ${what}, then it is rejected and counted, and the rest of the heartbeat applies`, async () => {
      const phone = await connected();
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_field' });
      const whole = fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' });
      await heartbeat(phone, { ...HEARTBEAT, battery_level: 33, signal_percent: 50, radio: bad });
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_field' })).to.equal(counted + 1);
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_payload' })).to.equal(whole);
      expect((await fx.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ battery_level: 33, signal_percent: 50, radio: null });
      expect(phone.mqtt.closed).to.equal(false);
    });
  }

  it('when its radio cannot send, then pool SMS go to another device, SMS named for it wait, and a heartbeat that can send hands them over', async () => {
    const down = await connected('radio down');
    await heartbeat(down, { ...HEARTBEAT, radio: DOWN });
    const other = await fx.connectDevice({ name: 'other' });

    const pooled = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'any phone' })).body;
    await nextEvent(other, 'report', (id, status) => id === pooled.id && status === 'delivered');
    expect((await fx.tenant.api.get(`/sms/${pooled.id}`)).body.device_id).to.equal(other.id);

    const named = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'only you', device_id: down.id })).body;
    // Claimed for it now, were it handed work: the queue's own view says why it is not.
    const queue = (await fx.tenant.api.get(`/devices/${down.id}`)).body.queue;
    expect(queue).to.include({ blocked_by: 'radio', waiting: 1, in_flight: 0 });
    expect((await fx.tenant.api.get(`/sms/${named.id}`)).body).to.include({ status: 'pending', device_id: down.id });
    expect(tasksOf(down)).to.have.length(0);

    await heartbeat(down, { ...HEARTBEAT, radio: { can_send: true } });
    const task = await down.mqtt.nextMessage((message) => message.topic === topic(down.id, 'tasks'));
    expect(JSON.parse(task.payload).sms_id).to.equal(named.id);
    expect(tasksOf(down).map((message) => JSON.parse(message.payload).sms_id)).to.deep.equal([named.id]);
  });

  it('when a device that could not send reports no radio at all (an older agent), then it is handed work as before', async () => {
    const down = await connected('downgraded');
    await heartbeat(down, { ...HEARTBEAT, radio: DOWN });
    const named = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'only you', device_id: down.id })).body;
    expect(tasksOf(down)).to.have.length(0);
    await heartbeat(down, HEARTBEAT);
    const task = await down.mqtt.nextMessage((message) => message.topic === topic(down.id, 'tasks'));
    expect(JSON.parse(task.payload).sms_id).to.equal(named.id);
  });
});
