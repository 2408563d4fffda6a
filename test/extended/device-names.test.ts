// A device's names: the name it was registered with is the user's name for it (name_custom),
// which its heartbeats never overwrite; a heartbeat sets the system name (name) only, which is
// what name_custom falls back to when the user clears it.
import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import type { Gateway } from '../../src/gateway.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { rawDevice } from '../support/raw-device.ts';

describe('extended API: device names', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  const clients: MqttClient[] = [];

  before(async () => {
    gateway = await startGateway();
    tenant = await createTenant(gateway);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.endAsync(true)));
  });
  after(async () => gateway.stop());

  async function registered(name: string): Promise<{ id: string; token: string }> {
    const reply = await tenant.api.post('/devices', { name });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return { id: reply.body.device.id, token: reply.body.credentials.password };
  }

  /** A heartbeat with QoS 2: it has been applied once the publish completes. */
  async function heartbeat(device: { id: string; token: string }, systemName: string): Promise<void> {
    const client = await rawDevice(gateway.mqttPort, device.id, device.token, false);
    clients.push(client);
    const body = { battery_level: 80, is_charging: false, sim_cards: [], type: 'android', name: systemName };
    await client.publishAsync(deviceTopic(device.id, 'heartbeat'), JSON.stringify(body), { qos: 2 });
  }

  it('when a device registered as "phone two" sends a heartbeat, then GET shows name_custom "phone two" and name the system name', async () => {
    const device = await registered('phone two');
    const before = await tenant.api.get(`/devices/${device.id}`);
    expect(before.body).to.include({ name_custom: 'phone two' });

    await heartbeat(device, 'Pixel 7');
    const after = await tenant.api.get(`/devices/${device.id}`);
    expect(after.status).to.equal(200);
    expect(after.body).to.include({ name: 'Pixel 7', name_custom: 'phone two' });
    const listed = await tenant.api.get('/devices');
    expect(listed.body.data.find((row: { id: string }) => row.id === device.id)).to.include({ name: 'Pixel 7', name_custom: 'phone two' });
  });

  it('when a second heartbeat reports another system name, then only name follows it', async () => {
    const device = await registered('front desk');
    await heartbeat(device, 'Pixel 7');
    await heartbeat(device, 'Pixel 8');
    expect((await tenant.api.get(`/devices/${device.id}`)).body).to.include({ name: 'Pixel 8', name_custom: 'front desk' });
  });

  it('when name_custom is cleared after a heartbeat, then name_custom shows the system name', async () => {
    const device = await registered('phone three');
    await heartbeat(device, 'Galaxy S24');
    const cleared = await tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: '' });
    expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
    expect(cleared.body).to.include({ name: 'Galaxy S24', name_custom: 'Galaxy S24' });
    await heartbeat(device, 'Galaxy S25');
    expect((await tenant.api.get(`/devices/${device.id}`)).body).to.include({ name: 'Galaxy S25', name_custom: 'Galaxy S25' });
  });
});
