// POST /api/ext/v1/devices/{id}/token: a new token for a device whose token is lost. The old
// token is refused from then on (CONNACK 5), a live connection made with it is closed, the new
// one is accepted; the answer is registration's (device, credentials, broker, pairing_url).
// Another account's device is a 404 and the permission is devices:write.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { useGateway } from '../support/use-gateway.ts';
import { expectDevice, expectError, MALFORMED_IDS } from '../support/expectations.ts';
import { topic } from '../support/mqtt.ts';
import { deviceRow, updateDevices } from '../support/test-data.ts';

const ISSUED_KEYS = ['device', 'credentials', 'broker', 'pairing_url', 'install_command'];

describe('POST /api/ext/v1/devices/{id}/token', () => {
  const fx = useGateway();

  it('when the device is the account\'s, then it answers 200 with registration\'s shape and a token that differs from the old one', async () => {
    const { device, token: old } = await fx.registerDevice('Lost token');
    const reply = await fx.tenant.api.post(`/devices/${device.id}/token`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body).to.have.all.keys(...ISSUED_KEYS);
    expectDevice(reply.body.device);
    expect(reply.body.device).to.include({ id: device.id, name_custom: 'Lost token' });
    expect(reply.body.credentials).to.deep.equal({ client_id: device.id, username: device.id, password: reply.body.credentials.password });
    expect(reply.body.credentials.password).to.be.a('string').with.length.of.at.least(32).and.not.equal(old);
    const port = fx.gateway.mqttPort;
    expect(reply.body.broker).to.deep.equal({ mqtt_port: port, websocket_path: '/mqtt', host: '127.0.0.1', port, tls: false, url: `mqtt://127.0.0.1:${port}` });
    expect(reply.body.pairing_url).to.equal(
      `smsgw://127.0.0.1:${port}?v=1&device=${device.id}&token=${encodeURIComponent(reply.body.credentials.password)}` +
        `&api=${encodeURIComponent(fx.baseUrl)}`,
    );
  });

  it('when a token is issued, then only its hash is stored', async () => {
    const { device } = await fx.registerDevice();
    const reply = await fx.tenant.api.post(`/devices/${device.id}/token`);
    const row = await deviceRow(fx, device.id);
    expect(JSON.stringify(row)).not.to.contain(reply.body.credentials.password);
  });

  it('when the phone is connected with the old token, then that connection is closed, the old token is refused with CONNACK 5 and the new one accepted', async () => {
    const { device, token: old } = await fx.registerDevice();
    const live = await fx.clients.device(device.id, old);
    expect(fx.gateway.services.presence.isOnline(device.id)).to.equal(true);

    const reply = await fx.tenant.api.post(`/devices/${device.id}/token`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    await live.whenClosed();
    expect(fx.gateway.services.presence.isOnline(device.id), 'offline once its connection is closed').to.equal(false);

    const refused = await fx.clients.refused({ clientId: device.id, username: device.id, password: old });
    expect(refused.code, 'CONNACK 5: not authorized').to.equal(5);

    const renewed = await fx.clients.device(device.id, reply.body.credentials.password);
    expect(renewed.closed).to.equal(false);
    expect(fx.gateway.services.presence.isOnline(device.id)).to.equal(true);
  });

  it('when it is issued twice, then only the last token works', async () => {
    const { device } = await fx.registerDevice();
    const first = (await fx.tenant.api.post(`/devices/${device.id}/token`)).body.credentials.password;
    const second = (await fx.tenant.api.post(`/devices/${device.id}/token`)).body.credentials.password;
    expect((await fx.clients.refused({ clientId: device.id, username: device.id, password: first })).code).to.equal(5);
    await fx.clients.device(device.id, second);
  });

  it('when the device is otherwise unchanged, then its settings and SMS stay its own', async () => {
    const { device } = await fx.registerDevice();
    await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: 'Kept', selected_sim: 1 });
    const sms = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'still mine', device_id: device.id });
    const reply = await fx.tenant.api.post(`/devices/${device.id}/token`);
    expect(reply.body.device).to.include({ name_custom: 'Kept', selected_sim: 1 });
    expect((await fx.tenant.api.get(`/sms/${sms.body.id}`)).body).to.include({ device_id: device.id, status: 'pending' });
  });

  it('when a connection made with the old token survived (the change was not announced to this node), then its next heartbeat closes it', async () => {
    const { device, token: old } = await fx.registerDevice();
    const live = await fx.clients.device(device.id, old);
    // As a command run beside the gateway, without Redis, would: the row changes, nobody is told.
    await updateDevices(fx, device.id, { token_hash: 'f'.repeat(64) });
    await live.client.publishAsync(topic(device.id, 'heartbeat'), JSON.stringify({ battery_level: 50, is_charging: false, sim_cards: [] }), { qos: 1 });
    await live.whenClosed();
  });

  it("when the device is another account's, then it is a 404 and its token still works", async () => {
    const other = await fx.newTenant();
    const { device, token } = await fx.registerDevice('theirs', other);
    expectError(await fx.tenant.api.post(`/devices/${device.id}/token`), 404, 'device_not_found');
    await fx.clients.device(device.id, token);
  });

  it('when the device does not exist or was deleted, then it is a 404', async () => {
    expectError(await fx.tenant.api.post(`/devices/${randomUUID()}/token`), 404, 'device_not_found');
    const { device } = await fx.registerDevice();
    await fx.tenant.api.delete(`/devices/${device.id}`);
    expectError(await fx.tenant.api.post(`/devices/${device.id}/token`), 404, 'device_not_found');
  });

  for (const id of MALFORMED_IDS) {
    it(`when the id is malformed (${JSON.stringify(id)}), then it is a 400`, async () => {
      const reply = await fx.tenant.api.post(`/devices/${encodeURIComponent(id)}/token`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
    });
  }

  it('when the key lacks devices:write, then it is a 403 and the token is unchanged', async () => {
    const { device, token } = await fx.registerDevice();
    const reader = await fx.keyWith(PERMISSIONS.filter((permission) => permission !== 'devices:write'));
    expectError(await reader.post(`/devices/${device.id}/token`), 403, 'forbidden');
    await fx.clients.device(device.id, token);
  });

  it('when no key is given, then it is a 401', async () => {
    const { device } = await fx.registerDevice();
    const reply = await fetch(`${fx.baseUrl}/api/ext/v1/devices/${device.id}/token`, { method: 'POST' });
    expect(reply.status).to.equal(401);
  });
});
