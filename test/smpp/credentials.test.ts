// SMPP credentials over HTTP and the CLI's service: issued with an 8-character password shown
// once, listed without it, revoked; a revoked credential unbinds its sessions at once, and wrong
// passwords count in the login throttle until the system_id is locked.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { storedSmppCredential } from '../support/test-data.ts';
import { bindEsme, issueCredential, SMPP_ON, TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

describe('SMPP: credentials', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  const esmes: TestEsme[] = [];
  afterEach(() => esmes.splice(0).forEach((esme) => esme.close()));

  it('answers 201 with system_id and an 8-character password once; lists never show it', async () => {
    const created = await fx.tenant.api.post('/smpp/credentials', { system_id: 'crm1', throughput_per_second: 5, window_size: 3 });
    expect(created.status).to.equal(201);
    expect(created.body.system_id).to.equal('crm1');
    expect(created.body.password).to.match(/^[A-Za-z0-9]{8}$/);
    expect(created.body).to.include({ throughput_per_second: 5, window_size: 3, revoked_at: null });
    const list = await fx.tenant.api.get('/smpp/credentials');
    expect(list.status).to.equal(200);
    expect(list.body.data).to.have.length(1);
    expect(JSON.stringify(list.body)).not.to.contain(created.body.password);
    expect(JSON.stringify(list.body)).not.to.match(/password|hash/);
    // Stored hashed: the row holds no password.
    const row = await storedSmppCredential(fx, created.body.id);
    expect(JSON.stringify(row)).not.to.contain(created.body.password);
  });

  it('refuses a bad system_id, a system_id in use, another account\'s device, and a key without keys:manage', async () => {
    expect((await fx.tenant.api.post('/smpp/credentials', { system_id: 'much-too-long-system-id' })).status).to.equal(400);
    await issueCredential(fx.tenant, { system_id: 'taken1' });
    const again = await fx.tenant.api.post('/smpp/credentials', { system_id: 'taken1' });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('smpp_system_id_taken');
    const other = await fx.newTenant();
    const { device } = await fx.gateway.services.devices.register(other.accountId, 'theirs');
    expect((await fx.tenant.api.post('/smpp/credentials', { device_ids: [device.id] })).status).to.equal(404);
    const reader = await fx.keyWith(['sms:read']);
    expect((await reader.post('/smpp/credentials', {})).status).to.equal(403);
    expect((await reader.get('/smpp/credentials')).status).to.equal(403);
  });

  it('binds with the right password only (ESME_RBINDFAIL otherwise)', async () => {
    const credential = await issueCredential(fx.tenant);
    const esme = await TestEsme.connect(fx.gateway.smppPort);
    esmes.push(esme);
    const wrong = await esme.call('bind_transceiver', { system_id: credential.system_id, password: 'wrongpw1' });
    expect(wrong.command_status).to.equal(STATUS.ESME_RBINDFAIL);
    const unknown = await esme.call('bind_transceiver', { system_id: 'nobody', password: credential.password });
    expect(unknown.command_status).to.equal(STATUS.ESME_RBINDFAIL);
    const right = await esme.call('bind_transceiver', { system_id: credential.system_id, password: credential.password });
    expect(right.command_status).to.equal(STATUS.ESME_ROK);
    expect(right.system_id).to.equal('sms-gateway');
    const twice = await esme.call('bind_transceiver', { system_id: credential.system_id, password: credential.password });
    expect(twice.command_status).to.equal(STATUS.ESME_RALYBND);
  });

  it('revoking a credential unbinds its sessions at once and refuses its next bind', async () => {
    const credential = await issueCredential(fx.tenant);
    const esme = await bindEsme(fx.gateway, credential);
    esmes.push(esme);
    const unbind = esme.next((pdu) => pdu.command === 'unbind');
    const revoked = await fx.tenant.api.delete(`/smpp/credentials/${credential.id}`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body.revoked_at).to.be.a('string');
    await unbind;
    await esme.closed;
    const again = await TestEsme.connect(fx.gateway.smppPort);
    esmes.push(again);
    expect((await again.call('bind_transmitter', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_RBINDFAIL);
    expect((await fx.tenant.api.delete(`/smpp/credentials/${credential.id}`)).status).to.equal(200);
    const other = await fx.newTenant();
    expect((await other.api.delete(`/smpp/credentials/${credential.id}`)).status).to.equal(404);
  });

  it('locks a system_id after repeated wrong passwords, the right one included', async () => {
    const credential = await issueCredential(fx.tenant);
    const esme = await TestEsme.connect(fx.gateway.smppPort);
    esmes.push(esme);
    for (let i = 0; i < 10; i++) {
      expect((await esme.call('bind_receiver', { system_id: credential.system_id, password: `wrong${i}xx` })).command_status).to.equal(STATUS.ESME_RBINDFAIL);
    }
    expect((await esme.call('bind_receiver', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_RBINDFAIL);
    expect(fx.gateway.services.metrics.value('auth_failures_total', { channel: 'smpp' })).to.be.at.least(10);
  });
});
