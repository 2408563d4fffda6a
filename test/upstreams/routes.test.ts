// Upstream routes end to end: an account's SMS leave through an SMSC (the smpp package's server,
// software the gateway did not write) when its routes say its phones cannot send them, with the
// SMSC's receipts moving them on as a phone's reports would; an SMS a silent phone held moves
// upstream after the rule's wait and is sent once; a refusing or unreachable upstream passes the
// SMS to the next rule.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { rawDevice, nextMessage } from '../support/raw-device.ts';
import { ESME_RINVDSTADR, ESME_RTHROTTLED, TestSmsc } from '../support/test-smsc.ts';
import { LOOPBACK_PROVIDERS, smppUpstream } from '../support/smpp-upstream.ts';
import type { ApiClient } from '../support/tenant.ts';
import { ALL_ORDINARY } from '../../src/modules/api-keys/permissions.ts';
import { connectDevice } from '../support/devices.ts';

const PHONE = '+447911123456';

describe('upstream routes: phones first, an SMSC as fallback', function () {
  this.timeout(30_000);
  // The SMSC listens on 127.0.0.1, which the outbound destination guard refuses unless allowed.
  const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: LOOPBACK_PROVIDERS }) } });
  let smsc: TestSmsc;

  beforeEach(async () => {
    smsc = await TestSmsc.start();
  });
  afterEach(async () => {
    await smsc.stop();
  });

  // Not waited for: some tests want a link that never binds.
  const upstream = (api: ApiClient, server: TestSmsc, name = 'carrier', password = server.password) => smppUpstream(api, server, { name, password }, { bound: false });
  const linkState = async (api: ApiClient, id: string) => (await api.get(`/upstreams/${id}`)).body.link.state as string;
  async function setRoutes(api: ApiClient, routes: object[]) {
    const reply = await api.request('PUT', '/routes', { routes });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  }
  const status = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body.status as string;
  async function send(message = 'Your code is 123456') {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }

  it('sends through the upstream when no phone is online, and maps its receipt to delivered', async () => {
    const id = await upstream(fx.tenant.api, smsc);
    await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
    await setRoutes(fx.tenant.api, [{ target: 'phones' }, { target: id }]);

    const smsId = await send();
    await eventually('the SMSC got the SMS', () => smsc.submits.length === 1);
    const submitted = smsc.submits[0]!;
    expect(submitted.destination_addr).to.equal(PHONE.slice(1));
    const text = submitted.short_message as { message?: unknown } | string;
    expect(String(typeof text === 'object' ? text.message : text)).to.contain('123456');
    await eventually('sent', async () => (await status(smsId)) === 'sent');

    smsc.receipt(smsc.givenIds[0]!, 'DELIVRD', 2);
    await eventually('delivered', async () => (await status(smsId)) === 'delivered');
    // No phone tried it: the upstream's is its first attempt, and names the upstream.
    const attempts = (await fx.tenant.api.get(`/sms/${smsId}/attempts`)).body;
    expect(attempts.data).to.have.length(1);
    expect(attempts.data[0]).to.include({ attempt: 1, upstream_id: id, device_id: null, result: 'sent' });

    const shown = (await fx.tenant.api.get(`/upstreams/${id}`)).body;
    expect(shown.month.segments).to.equal(1);
    expect(shown).to.not.have.property('password');
  });

  it('moves an SMS a silent phone held upstream after the rule\'s wait, tells the phone, and refuses the phone\'s late acknowledgement: sent once', async () => {
    const { device, token } = await fx.registerDevice('silent');
    const phone = await rawDevice(fx.gateway.mqttPort, device.id, token);
    await phone.subscribeAsync(deviceTopic(device.id, 'revoke'), { qos: 1 });
    try {
      const id = await upstream(fx.tenant.api, smsc);
      await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
      await setRoutes(fx.tenant.api, [{ target: 'phones', after_seconds: 1 }, { target: id }]);

      const task = nextMessage(phone, deviceTopic(device.id, 'tasks'));
      const smsId = await send();
      expect(JSON.parse((await task).toString()).sms_id ?? JSON.parse((await task).toString()).id).to.equal(smsId);
      const revoke = nextMessage(phone, deviceTopic(device.id, 'revoke'), 10_000);
      await eventually('the SMSC got it', () => smsc.submits.length === 1, 10_000);
      expect(JSON.parse((await revoke).toString()).sms_id).to.equal(smsId);
      await eventually('sent through the upstream', async () => (await status(smsId)) === 'sent');

      // The phone acknowledges late: the SMS is no longer its own, and stays the upstream's.
      const refused = nextMessage(phone, deviceTopic(device.id, 'revoke'));
      await phone.publishAsync(deviceTopic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'processing' }), { qos: 2 });
      expect(JSON.parse((await refused).toString()).sms_id).to.equal(smsId);
      expect(await status(smsId)).to.equal('sent');
      expect(smsc.submits).to.have.length(1);
    } finally {
      await phone.endAsync();
    }
  });

  it('moves the SMS a phone held upstream at once when the account\'s last phone goes offline', async () => {
    const { device, token } = await fx.registerDevice('leaving');
    const phone = await rawDevice(fx.gateway.mqttPort, device.id, token);
    const id = await upstream(fx.tenant.api, smsc);
    await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
    await setRoutes(fx.tenant.api, [{ target: 'phones' }, { target: id }]);
    const task = nextMessage(phone, deviceTopic(device.id, 'tasks'));
    const smsId = await send();
    await task;
    expect(smsc.submits).to.have.length(0);
    await phone.endAsync(true);
    await eventually('sent through the upstream', async () => (await status(smsId)) === 'sent', 10_000);
    expect(smsc.submits).to.have.length(1);
  });

  it('passes an SMS the first upstream refuses, or cannot reach, to the next rule', async () => {
    const refusing = smsc;
    refusing.answer = () => ESME_RINVDSTADR;
    const second = await TestSmsc.start();
    try {
      const first = await upstream(fx.tenant.api, refusing, 'refusing');
      const backup = await upstream(fx.tenant.api, second, 'backup');
      await eventually('both bound', async () => (await linkState(fx.tenant.api, first)) === 'ready' && (await linkState(fx.tenant.api, backup)) === 'ready');
      await setRoutes(fx.tenant.api, [{ target: first }, { target: backup }]);

      const smsId = await send();
      await eventually('the backup took it', () => second.submits.length === 1);
      await eventually('sent', async () => (await status(smsId)) === 'sent');
      expect(refusing.submits).to.have.length(1);

      // An upstream whose SMSC refuses the bind is down: the routes go past it at once.
      const locked = await TestSmsc.start();
      locked.password = 'other';
      const unreachable = await upstream(fx.tenant.api, locked, 'locked', 'wrong');
      await eventually('down', async () => (await linkState(fx.tenant.api, unreachable)) === 'down');
      await setRoutes(fx.tenant.api, [{ target: unreachable }, { target: backup }]);
      const next = await send('second');
      await eventually('the backup took the second', () => second.submits.length === 2);
      await eventually('sent', async () => (await status(next)) === 'sent');
      expect(locked.submits).to.have.length(0);
      await locked.stop();
    } finally {
      await second.stop();
    }
  });

  it('gives an SMS the upstream refused back to the phones as its next attempt, each attempt naming who tried it', async () => {
    smsc.answer = () => ESME_RINVDSTADR;
    const refusing = await upstream(fx.tenant.api, smsc, 'refusing');
    await eventually('bound', async () => (await linkState(fx.tenant.api, refusing)) === 'ready');
    await setRoutes(fx.tenant.api, [{ target: refusing }, { target: 'phones' }]);
    const smsId = await send();
    await eventually('refused upstream', async () => ((await fx.tenant.api.get(`/sms/${smsId}/attempts`)).body.data as unknown[]).length === 1);

    const phone = fx.track(await connectDevice(fx.gateway, fx.tenant));
    await eventually('the phone delivered it', async () => (await status(smsId)) === 'delivered', 10_000);
    const attempts = (await fx.tenant.api.get(`/sms/${smsId}/attempts`)).body.data;
    expect(attempts.map((each: { attempt: number; upstream_id: string | null; device_id: string | null; result: string }) => [each.attempt, each.upstream_id, each.device_id, each.result])).to.deep.equal([
      [1, refusing, null, 'failed'],
      [2, null, phone.id, 'sent'],
    ]);
  });

  it('prices what an upstream took by the longest matching prefix, and passes it by once its monthly budget is spent', async () => {
    const second = await TestSmsc.start();
    try {
      const created = await fx.tenant.api.post('/upstreams', {
        name: 'budgeted', kind: 'smpp', host: '127.0.0.1', port: smsc.port, system_id: 'gateway', password: smsc.password,
        price_per_segment: 0.01, prefix_prices: [{ prefix: '+44', price: 0.02 }, { prefix: '+4479', price: 0.05 }], monthly_budget: 0.05,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const budgeted = created.body.id as string;
      const backup = await upstream(fx.tenant.api, second, 'backup');
      await eventually('both bound', async () => (await linkState(fx.tenant.api, budgeted)) === 'ready' && (await linkState(fx.tenant.api, backup)) === 'ready');
      await setRoutes(fx.tenant.api, [{ target: budgeted }, { target: backup }]);

      const first = await send('first');
      await eventually('sent', async () => (await status(first)) === 'sent');
      const month = (await fx.tenant.api.get(`/upstreams/${budgeted}`)).body.month;
      expect(month).to.include({ segments: 1, spent: 0.05, budget_left: 0 });

      const next = await send('second');
      await eventually('sent by the backup', async () => (await status(next)) === 'sent');
      expect(smsc.submits).to.have.length(1);
      expect(second.submits).to.have.length(1);
    } finally {
      await second.stop();
    }
  });

  it('tries a throttled upstream again later, and fails the SMS when the last rule refuses it', async () => {
    let throttled = 1;
    smsc.answer = () => (throttled-- > 0 ? ESME_RTHROTTLED : 0);
    const id = await upstream(fx.tenant.api, smsc);
    await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
    await setRoutes(fx.tenant.api, [{ target: id }]);
    const smsId = await send();
    await eventually('sent on the second try', async () => (await status(smsId)) === 'sent', 15_000);
    expect(smsc.submits).to.have.length(2);

    smsc.answer = () => ESME_RINVDSTADR;
    const refused = await send('refused');
    await eventually('failed', async () => (await status(refused)) === 'failed_send');
    const attempts = (await fx.tenant.api.get(`/sms/${refused}/attempts`)).body;
    expect(JSON.stringify(attempts)).to.contain('0x0000000b');
  });

  it('sends nothing upstream to a recipient who opted out while the SMS waited for the phones', async () => {
    const { device, token } = await fx.registerDevice('silent');
    const phone = await rawDevice(fx.gateway.mqttPort, device.id, token);
    try {
      const id = await upstream(fx.tenant.api, smsc);
      await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
      await setRoutes(fx.tenant.api, [{ target: 'phones', after_seconds: 1 }, { target: id }]);
      const task = nextMessage(phone, deviceTopic(device.id, 'tasks'));
      // A key that cannot send past the suppression list (one holding sms:send_transactional can).
      const key = await fx.keyWith([...ALL_ORDINARY]);
      const created = await key.post('/sms', { phone: PHONE, message: 'offer' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const smsId = created.body.id as string;
      await task;
      const stop = await fx.tenant.api.post('/suppressions', { phone: PHONE });
      expect(stop.status, JSON.stringify(stop.body)).to.be.oneOf([200, 201]);
      await eventually('failed for the opt-out', async () => (await status(smsId)) === 'failed_send', 10_000);
      expect((await fx.tenant.api.get(`/sms/${smsId}`)).body.reason).to.equal('recipient_opted_out');
      expect(smsc.submits).to.have.length(0);
    } finally {
      await phone.endAsync();
    }
  });

  it('stores an SMS sent to the account through the upstream as a received SMS, with no device and the upstream named', async () => {
    const id = await upstream(fx.tenant.api, smsc);
    await eventually('the link bound', async () => (await linkState(fx.tenant.api, id)) === 'ready');
    smsc.deliver({ source_addr: '447911123456', short_message: 'STATUS please' });
    const received = await eventually('received', async () => {
      const list = (await fx.tenant.api.get('/incoming')).body.data as { message: string }[];
      return list.find((sms) => sms.message === 'STATUS please');
    });
    expect(received).to.include({ phone: '+447911123456', device_id: null, upstream_id: id, sim_slot: null });
  });

  it('validates upstreams and routes, naming the field, and keeps an upstream the routes name', async () => {
    const bad = await fx.tenant.api.post('/upstreams', { name: 'x', kind: 'smpp', host: '127.0.0.1', port: 2775 });
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body)).to.contain('system_id');
    const foreign = await fx.tenant.api.post('/upstreams', { name: 'x', kind: 'smpp', host: '127.0.0.1', port: 2775, system_id: 'a', password: 'b', base_url: 'https://x' });
    expect(foreign.status).to.equal(400);
    expect(JSON.stringify(foreign.body)).to.contain('base_url');
    // What the link itself refuses is named as the API spells the field.
    const sid = await fx.tenant.api.post('/upstreams', { name: 'x', kind: 'twilio', base_url: 'https://example.com', account_sid: 'AC...', auth_token: 't', from: '+15005550006' });
    expect(sid.status).to.equal(400);
    expect(sid.body.error.details[0].field).to.equal('account_sid');
    const id = await upstream(fx.tenant.api, smsc);
    expect((await fx.tenant.api.post('/upstreams', { name: 'CARRIER', kind: 'smpp', host: '127.0.0.1', port: 1, system_id: 'a', password: 'b' })).status).to.equal(409);

    const unknown = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: '00000000-0000-4000-8000-000000000000' }] });
    expect(unknown.status).to.equal(400);
    expect(JSON.stringify(unknown.body)).to.contain('routes.0.target');
    const misplaced = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: id, after_seconds: 5 }] });
    expect(misplaced.status).to.equal(400);
    await setRoutes(fx.tenant.api, [{ target: 'phones', after_seconds: 60 }, { target: id }]);
    expect((await fx.tenant.api.delete(`/upstreams/${id}`)).status).to.equal(409);

    const other = await fx.newTenant();
    expect((await other.api.get(`/upstreams/${id}`)).status).to.equal(404);
    expect((await other.api.request('PUT', '/routes', { routes: [{ target: id }] })).status).to.equal(400);
    await setRoutes(fx.tenant.api, []);
    expect((await fx.tenant.api.delete(`/upstreams/${id}`)).status).to.equal(204);
  });
});
