// Webhook event kinds beyond SMS status changes : sms.received (when forward_incoming_sms is
// on), device.online, device.offline, device.battery_low (when notify_low_battery is on and the
// level falls below 20 %). A webhook gets only the events in its list, a disabled webhook is
// sent nothing (its events wait for it), a webhook failing for longer than
// WEBHOOK_DISABLE_AFTER is disabled and says so, and every payload carries id, type, timestamp
// and account.
import { expect } from 'chai';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Tenant } from '../support/tenant.ts';
import { nextEvent } from '../support/devices.ts';
import { Receiver, type Received } from '../support/receiver.ts';
import { expectIsoTimestamp, UUID } from '../support/expectations.ts';
import { ALL_EVENTS, createWebhook, deliveryLog, dropWebhooks, expectEnvelope, readWebhook, verified, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { deviceRow } from '../support/test-data.ts';

const PHONE = '+79161234567';
const SENDER = '+79005550101';
const DEVICE_KEYS = ['id', 'object_id', 'name', 'name_custom', 'battery_level', 'is_charging'];
const RECEIVED_KEYS = ['id', 'device_id', 'phone', 'message', 'sim_slot', 'received_at'];

describe('webhooks: events', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig({ disableAfterMs: 300 }) } });
  let receiver: Receiver;
  let accounts: string[] = [];

  beforeEach(async () => {
    accounts = [fx.tenant.accountId];
    receiver = await newReceiver();
  });
  afterEach(async () => {
    await dropWebhooks(fx.gateway, accounts);
  });

  function newReceiver(): Promise<Receiver> {
    return fx.receiver();
  }

  function online(owner: Tenant = fx.tenant): Promise<SimulatedDevice> {
    // apiUrl: where the phone uploads a call's recording.
    return fx.connectDevice({ apiUrl: fx.baseUrl }, owner);
  }

  async function settings(deviceId: string, values: Record<string, boolean>, owner: Tenant = fx.tenant): Promise<void> {
    const reply = await owner.api.patch(`/devices/${deviceId}/settings`, values);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  async function objectIdOf(deviceId: string): Promise<string> {
    return (await fx.gateway.services.devices.get(fx.tenant.accountId, deviceId)).object_id;
  }

  /** Resolves once the gateway has stored the device's current battery state. */
  async function stored(device: SimulatedDevice): Promise<void> {
    const [level, charging] = [device.batteryLevel, device.isCharging];
    await eventually(`battery ${level}% (charging: ${charging}) stored`, async () => {
      const row = await deviceRow(fx, device.id);
      return row?.battery_level === level && row?.is_charging === charging ? true : undefined;
    });
  }

  /**
   * Sends a heartbeat with this battery state and waits until the gateway has stored it. The
   * previous heartbeat (the one sent on connect, too) is stored first: heartbeats go with QoS 1,
   * acknowledged on receipt, and two in flight at once could be handled in either order.
   */
  async function battery(device: SimulatedDevice, level: number, charging = false): Promise<void> {
    await stored(device);
    device.batteryLevel = level;
    device.isCharging = charging;
    await device.heartbeat();
    await stored(device);
  }

  const ofType = (type: string) => (request: Received) => request.json?.type === type;

  function expectDevicePayload(event: any, device: SimulatedDevice, objectId: string): void {
    expect(Object.keys(event.data)).to.deep.equal(['device']);
    expect(Object.keys(event.data.device)).to.have.members(DEVICE_KEYS);
    expect(event.data.device).to.include({ id: device.id, object_id: objectId });
    expect(event.data.device.name).to.be.a('string').and.not.empty;
  }

  describe('sms.received', () => {
    it('when forward_incoming_sms is on and the phone receives an SMS, then the webhook gets it with device, phone, message and time', async () => {
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['sms.received']);
      const phone = await online();
      await settings(phone.id, { forward_incoming_sms: true });
      await phone.receive(SENDER, 'hello from the network');
      const [request] = await receiver.waitFor(1, ofType('sms.received'));
      const event = verified(secret, request!);
      expectEnvelope(event, 'sms.received', fx.tenant.accountId);
      expect(Object.keys(event.data)).to.deep.equal(['sms']);
      expect(Object.keys(event.data.sms)).to.have.members(RECEIVED_KEYS);
      expect(event.data.sms).to.include({ device_id: phone.id, phone: SENDER, message: 'hello from the network', sim_slot: 0 });
      expect(event.data.sms.id).to.match(UUID);
      expectIsoTimestamp(event.data.sms.received_at, 'received_at');
      // The id is the one GET /incoming shows.
      const incoming = await fx.tenant.api.get('/incoming');
      expect(incoming.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([event.data.sms.id]);
      const [delivery] = await deliveryLog(fx.tenant, webhook.id);
      expect(delivery).to.include({ event_type: 'sms.received', event_id: event.id, id: request!.headers['webhook-id'] });
    });

    it('when forward_incoming_sms is off, then a received SMS raises no event until forwarding is on, and then in the order received', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.received']);
      const phone = await online();
      const off = nextEvent(phone, 'settings', (value: Record<string, unknown>) => value.forward_incoming_sms === false);
      await settings(phone.id, { forward_incoming_sms: false });
      await off;
      // Kept on the phone (its journal), not sent to the gateway.
      await phone.receive(SENDER, 'kept while off');
      expect(await deliveryLog(fx.tenant, webhook.id)).to.deep.equal([]);
      await settings(phone.id, { forward_incoming_sms: true });
      await phone.receive(SENDER, 'forwarded');
      await receiver.waitFor(2, ofType('sms.received'));
      expect(receiver.received.map((r) => r.json.data.sms.message)).to.deep.equal(['kept while off', 'forwarded']);
      expect(await deliveryLog(fx.tenant, webhook.id)).to.have.length(2);
    });
  });

  describe('device.online and device.offline', () => {
    it('when a device connects and then disconnects, then the webhook gets device.online and then device.offline naming it', async () => {
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['device.online', 'device.offline']);
      const phone = await online();
      const objectId = await objectIdOf(phone.id);
      const [up] = await receiver.waitFor(1, ofType('device.online'));
      const onlineEvent = verified(secret, up!);
      expectEnvelope(onlineEvent, 'device.online', fx.tenant.accountId);
      expectDevicePayload(onlineEvent, phone, objectId);

      await phone.stop();
      const [down] = await receiver.waitFor(1, ofType('device.offline'));
      const offlineEvent = verified(secret, down!);
      expectEnvelope(offlineEvent, 'device.offline', fx.tenant.accountId);
      expectDevicePayload(offlineEvent, phone, objectId);
      expect(receiver.received.map((r) => r.json.type)).to.deep.equal(['device.online', 'device.offline']);
      expect(Date.parse(offlineEvent.timestamp)).to.be.at.least(Date.parse(onlineEvent.timestamp));
    });

    it('when a device loses its connection without saying goodbye, then the webhook gets device.offline', async () => {
      await createWebhook(fx.tenant, receiver.url, ['device.offline']);
      const phone = await online();
      await phone.kill();
      const [down] = await receiver.waitFor(1, ofType('device.offline'));
      expect(down!.json.data.device.id).to.equal(phone.id);
    });
  });

  describe('device.battery_low', () => {
    it('when notify_low_battery is on and the level falls below 20 %, then the webhook gets one event per crossing', async () => {
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['device.battery_low']);
      const phone = await online();
      await settings(phone.id, { notify_low_battery: true });
      await battery(phone, 25);
      await battery(phone, 20); // not below 20
      await battery(phone, 19);
      const [first] = await receiver.waitFor(1, ofType('device.battery_low'));
      const event = verified(secret, first!);
      expectEnvelope(event, 'device.battery_low', fx.tenant.accountId);
      expectDevicePayload(event, phone, await objectIdOf(phone.id));
      expect(event.data.device).to.include({ battery_level: 19, is_charging: false });

      await battery(phone, 10); // still low: no second event
      await battery(phone, 50); // back up
      await battery(phone, 15); // a new crossing
      await receiver.waitFor(2, ofType('device.battery_low'));
      expect(receiver.received.map((r) => r.json.data.device.battery_level)).to.deep.equal([19, 15]);
      expect((await deliveryLog(fx.tenant, webhook.id)).map((d) => d.event_type)).to.deep.equal(['device.battery_low', 'device.battery_low']);
    });

    it('when notify_low_battery is off, then a fall below 20 % raises no event', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.battery_low']);
      const phone = await online();
      await battery(phone, 12);
      await battery(phone, 60);
      // Switched on afterwards, the next crossing is announced: the only event there is.
      await settings(phone.id, { notify_low_battery: true });
      await battery(phone, 11);
      await receiver.waitFor(1, ofType('device.battery_low'));
      expect(receiver.received.map((r) => r.json.data.device.battery_level)).to.deep.equal([11]);
      expect(await deliveryLog(fx.tenant, webhook.id)).to.have.length(1);
    });

    it('when the phone is charging as the level falls below 20 %, then no event is raised', async () => {
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.battery_low']);
      const phone = await online();
      await settings(phone.id, { notify_low_battery: true });
      await battery(phone, 14, true);
      await battery(phone, 70, true);
      await battery(phone, 13, false);
      await receiver.waitFor(1, ofType('device.battery_low'));
      expect(receiver.received.map((r) => r.json.data.device.battery_level)).to.deep.equal([13]);
      expect(await deliveryLog(fx.tenant, webhook.id)).to.have.length(1);
    });
  });

  describe('which webhooks get an event', () => {
    it('when a webhook does not list an event, then it does not get it', async () => {
      const offlineReceiver = await newReceiver();
      const onlineHook = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const offlineHook = await createWebhook(fx.tenant, offlineReceiver.url, ['device.offline']);
      const phone = await online();
      await receiver.waitFor(1);
      await phone.stop();
      await offlineReceiver.waitFor(1);
      expect(receiver.received.map((r) => r.json.type)).to.deep.equal(['device.online']);
      expect(offlineReceiver.received.map((r) => r.json.type)).to.deep.equal(['device.offline']);
      expect((await deliveryLog(fx.tenant, onlineHook.webhook.id)).map((d) => d.event_type)).to.deep.equal(['device.online']);
      expect((await deliveryLog(fx.tenant, offlineHook.webhook.id)).map((d) => d.event_type)).to.deep.equal(['device.offline']);
    });

    it('when a webhook is disabled through the API, then it is sent nothing (its event waits, unsent) while others with the event get it', async () => {
      const disabledReceiver = await newReceiver();
      await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const { webhook: disabled } = await createWebhook(fx.tenant, disabledReceiver.url, ['device.online']);
      const patched = await fx.tenant.api.patch(`/webhooks/${disabled.id}`, { enabled: false });
      expect(patched.status).to.equal(200);
      await online();
      // Both webhooks' deliveries would be written together, in one outbox write.
      await receiver.waitFor(1);
      expect(disabledReceiver.received).to.have.length(0);
      expect((await deliveryLog(fx.tenant, disabled.id)).map((d) => [d.status, d.attempts])).to.deep.equal([['pending', 0]]);
    });

    it("when another account has a webhook for every event, then it gets none of this account's events", async () => {
      const other = await fx.newTenant();
      accounts.push(other.accountId);
      const otherReceiver = await newReceiver();
      const theirs = await createWebhook(other, otherReceiver.url, [...ALL_EVENTS]);
      await createWebhook(fx.tenant, receiver.url, ['device.online']);
      await online();
      await receiver.waitFor(1);
      expect(otherReceiver.received).to.have.length(0);
      expect(await deliveryLog(other, theirs.webhook.id)).to.deep.equal([]);
    });
  });

  describe('when a webhook keeps failing', () => {
    it('then once every attempt has failed for longer than WEBHOOK_DISABLE_AFTER (300 ms) it is disabled, says why, and new events wait unsent', async function () {
      this.timeout(20_000);
      receiver.respond = () => 500;
      const { webhook } = await createWebhook(fx.tenant, receiver.url, ['device.online']);
      const disabled = nextEvent(fx.gateway.services.webhookSender, 'disabled', (webhooks: { id: string }[]) => webhooks.some((w) => w.id === webhook.id), 15_000);
      await online();
      await disabled;
      const attempts = receiver.received.length;
      const read = await readWebhook(fx.tenant, webhook.id);
      expect(read).to.include({ enabled: false, consecutive_failures: attempts });
      expect(read.disabled_reason).to.match(/failed for more than 300 ms/);
      expect(attempts).to.be.at.least(2);
      expect(receiver.received.every((r) => r.status === 500)).to.equal(true);
      const [delivery] = await deliveryLog(fx.tenant, webhook.id);
      expect(delivery).to.include({ attempts, last_status_code: 500 });

      // A later event is kept for it but not sent; another webhook with the event shows it happened.
      const witness = await newReceiver();
      await createWebhook(fx.tenant, witness.url, ['device.online']);
      await online();
      await witness.waitFor(1);
      const log = await deliveryLog(fx.tenant, webhook.id);
      expect(log.map((d) => [d.status, d.attempts])).to.deep.equal([['pending', 0], ['pending', attempts]]);
      expect(receiver.received).to.have.length(attempts);
    });
  });

  describe('every payload', () => {
    it('when every kind of event happens, then each carries id, type, timestamp and account, signed, with a unique event id and webhook-id', async function () {
      this.timeout(20_000);
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, [...ALL_EVENTS]);
      const phone = await online();
      await receiver.waitFor(1, ofType('device.online'));
      await settings(phone.id, { notify_low_battery: true, forward_incoming_sms: true });
      await battery(phone, 9);
      await receiver.waitFor(1, ofType('device.battery_low'));
      await phone.receive(SENDER, 'incoming');
      await receiver.waitFor(1, ofType('sms.received'));
      await phone.receive(SENDER, 'STOP');
      await receiver.waitFor(1, ofType('contact.opted_out'));
      await phone.receive(SENDER, 'START');
      await receiver.waitFor(1, ofType('contact.opted_in'));
      const sent = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'outgoing' });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      await receiver.waitFor(3, ofType('sms.status_changed'));
      const recording = new Promise<void>((resolve) => phone.once('settings', () => resolve()));
      await settings(phone.id, { record_calls: true });
      await recording;
      await phone.makeCall({ direction: 'missed', phone: SENDER });
      await receiver.waitFor(1, ofType('call.missed'));
      expect((await phone.makeCall({ direction: 'incoming', phone: SENDER, durationSeconds: 1 })).uploaded).to.equal(201);
      await receiver.waitFor(1, ofType('call.recorded'));
      // The simulated phone's network knows *100# (the balance) and not *555#.
      expect((await fx.tenant.api.post(`/devices/${phone.id}/ussd`, { code: '*100#' })).status).to.equal(202);
      await receiver.waitFor(1, ofType('ussd.completed'));
      expect((await fx.tenant.api.post(`/devices/${phone.id}/ussd`, { code: '*555#' })).status).to.equal(202);
      await receiver.waitFor(1, ofType('ussd.failed'));
      // An MMS of text alone is complete as soon as it is reported.
      await phone.receiveMms({ phone: SENDER, message: 'an MMS', parts: [] });
      await receiver.waitFor(1, ofType('mms.received'));
      await phone.stop();
      await receiver.waitFor(1, ofType('device.offline'));

      const events = receiver.received.map((request) => {
        const event = verified(secret, request);
        expectEnvelope(event, event.type, fx.tenant.accountId);
        expect(event).to.deep.equal(request.json);
        return event;
      });
      // A SIM or a device paused by a breaker takes failed sends in a row: test/retry/sim-breaker-jitter.test.ts, test/delivery/device-paused-events.test.ts.
      // A SIM degraded or recovered takes canary rounds among several phones: test/fleet-health/three-phones.test.ts.
      const paused: readonly string[] = ['sim.paused', 'device.paused', 'device.resumed', 'device.degraded', 'device.recovered'];
      expect(new Set(events.map((event) => event.type))).to.deep.equal(new Set(ALL_EVENTS.filter((type) => !paused.includes(type))));
      expect(new Set(events.map((event) => event.id)).size, 'event ids are unique').to.equal(events.length);
      const deliveryIds = receiver.received.map((request) => request.headers['webhook-id']);
      expect(new Set(deliveryIds).size, 'webhook-id headers are unique').to.equal(events.length);
      for (const request of receiver.received) {
        expect(request.headers['content-type']).to.match(/^application\/json/);
        expect(Number(request.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 60);
      }
      const log = await deliveryLog(fx.tenant, webhook.id);
      expect(log.map((d) => d.id)).to.have.members(deliveryIds as string[]);
      expect(log.map((d) => d.event_id)).to.have.members(events.map((event) => event.id));
    });
  });
});
