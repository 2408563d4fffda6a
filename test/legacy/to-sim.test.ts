// The legacy to_sim shows the SIM slot that actually sent, and stays null when no slot was
// named at creation (README, "Legacy API"). A raw MQTT device takes the task and sends every
// report itself, with and without the sim_slot it sent from.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';
import { mqttUrl, nextTask, RawClients, takeTasks, topic, type RawClient } from '../support/mqtt.ts';
import { legacyGet, legacySend, uuidOfMessage } from '../support/legacy.ts';

describe('legacy to_sim: the slot that sent the SMS', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  let clients: RawClients;
  let device: { id: string; mqtt: RawClient };

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    gateway = await startGateway();
    clients = new RawClients(() => mqttUrl(gateway));
  });
  after(async () => gateway.stop());
  beforeEach(async () => {
    tenant = await createTenant(gateway);
    const registered = await registerDevice(gateway, tenant);
    const mqtt = await clients.device(registered.device.id, registered.token);
    await takeTasks(mqtt, registered.device.id);
    device = { id: registered.device.id, mqtt };
  });
  afterEach(async () => clients.endAll());

  /** Sends an SMS to the device; resolves once the device holds its task. */
  async function sendToDevice(message: string, toSim?: number) {
    const objectId = await legacySend(tenant, { message, device_id: device.id, ...(toSim === undefined ? {} : { to_sim: toSim }) });
    const uuid = await uuidOfMessage(tenant, message);
    const task = await nextTask(device.mqtt, device.id, uuid);
    return { objectId, uuid, task };
  }

  /** Publishes one report with QoS 2: it resolves once the gateway has handled it. */
  const report = (fields: Record<string, unknown>) => device.mqtt.publish(topic(device.id, 'status'), JSON.stringify(fields), { qos: 2 });

  /** to_sim as POST /sms/get and GET /sms show it (they must agree). */
  async function toSimOf(objectId: string): Promise<unknown> {
    const single = (await legacyGet(tenant, objectId)).to_sim;
    const listed = (await tenant.root.get('/sms?limit=100')).body.sms_list.find((sms: { id: string }) => sms.id === objectId);
    expect(listed.to_sim, 'GET /sms shows the same to_sim').to.deep.equal(single);
    return single;
  }

  it('when slot 1 was asked for and the phone reports it sent from slot 0, then to_sim is 1 until the report and 0 after it', async () => {
    const { objectId, uuid, task } = await sendToDevice('asked 1', 1);
    expect(task.sim).to.equal(1);
    await report({ sms_id: uuid, status: 'processing' });
    expect(await toSimOf(objectId), 'before it is sent: the slot asked for').to.equal(1);
    await report({ sms_id: uuid, status: 'sent', sim_slot: 0 });
    expect(await toSimOf(objectId), 'after: the slot that sent it').to.equal(0);
    await report({ sms_id: uuid, status: 'delivered' });
    expect(await toSimOf(objectId), 'a later report without a slot keeps it').to.equal(0);
  });

  it('when a random slot (-1) was asked for, then to_sim shows the slot the phone reports having used', async () => {
    const { objectId, uuid } = await sendToDevice('random', -1);
    expect(await toSimOf(objectId)).to.equal(-1);
    await report({ sms_id: uuid, status: 'processing' });
    await report({ sms_id: uuid, status: 'sent', sim_slot: 2 });
    expect(await toSimOf(objectId)).to.equal(2);
  });

  it('when the phone reports no slot, then to_sim stays the slot asked for', async () => {
    const { objectId, uuid } = await sendToDevice('no slot reported', -2);
    await report({ sms_id: uuid, status: 'processing' });
    await report({ sms_id: uuid, status: 'sent' });
    expect(await toSimOf(objectId)).to.equal(-2);
  });

  it('when no slot was asked for, then to_sim stays null even once the phone reports one', async () => {
    const { objectId, uuid } = await sendToDevice('no slot asked');
    await report({ sms_id: uuid, status: 'processing' });
    await report({ sms_id: uuid, status: 'sent', sim_slot: 1 });
    const sms = await legacyGet(tenant, objectId);
    expect(sms.status).to.equal(2);
    expect(await toSimOf(objectId)).to.equal(null);
  });

  it('when a report carries a slot that is not one (8, -1, "1"), then the report is refused and nothing changes', async () => {
    const { objectId, uuid } = await sendToDevice('bad slot', 1);
    await report({ sms_id: uuid, status: 'processing' });
    for (const slot of [8, -1, '1']) await report({ sms_id: uuid, status: 'sent', sim_slot: slot });
    const sms = await legacyGet(tenant, objectId);
    expect(sms.status, 'still processing: the sent reports were refused').to.equal(1);
    expect(sms.to_sim).to.equal(1);
  });
});
