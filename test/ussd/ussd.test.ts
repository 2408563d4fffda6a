// USSD through the account's phones: POST /devices/{id}/ussd dials a code (202, pending), the
// gateway hands it to the phone on its `ussd` topic, the phone reports the network's answer on
// `ussd_status`; a menu waits for POST /ussd/{id}/reply; the session ends completed or failed
// (a phone's reason, or "timeout", driven from the database), with a signed ussd.completed or
// ussd.failed webhook. The phone here is a bare MQTT client, so every packet is the test's.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { expectError, expectIsoTimestamp, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { topic, type RawClient, type Received as MqttMessage } from '../support/mqtt.ts';
import { createWebhook, dropWebhooks, expectEnvelope, verified, webhookConfig } from '../support/webhooks.ts';
import type { Received } from '../support/receiver.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';
import type { UssdSessionRow } from '../../src/modules/ussd/types.ts';
import type { Gateway } from '../../src/gateway.ts';
import { testDatabase } from '../support/environment.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { deliveryRowsOfType } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';
const REPORTS = 'ussd_reports_total';
const USSD_KEYS = ['id', 'device_id', 'code', 'sim', 'status', 'message', 'error', 'history', 'timeout_seconds', 'expires_at', 'created_at', 'updated_at', 'finished_at'];

interface Phone {
  id: string;
  mqtt: RawClient;
}

interface Request {
  session_id: string;
  step: number;
  action: 'dial' | 'reply' | 'cancel';
  code?: string;
  sim?: number;
  text?: string;
  reason?: string;
  expires_at?: string;
}

/** The phone's side: its `ussd` requests, and its answers on `ussd_status` (QoS 2: resolved once the gateway has handled them). */
function phoneSide(phone: Phone) {
  const isUssd = (message: MqttMessage) => message.topic === topic(phone.id, 'ussd');
  return {
    async request(accept: (request: Request) => boolean, timeoutMs = 5_000): Promise<Request> {
      const message = await phone.mqtt.nextMessage((message) => isUssd(message) && accept(JSON.parse(message.payload)), timeoutMs);
      return JSON.parse(message.payload);
    },
    requests(): Request[] {
      return phone.mqtt.messages.filter(isUssd).map((message) => JSON.parse(message.payload));
    },
    answer(answer: Record<string, unknown>): Promise<void> {
      return phone.mqtt.publish(topic(phone.id, 'ussd_status'), JSON.stringify(answer), { qos: 2 });
    },
  };
}

/**
 * Records every "ussd.finished" the gateway announces (committed) from now on; `of(id)` resolves
 * with the session's, already heard or still to come. Made before the session starts, so that
 * however fast an answer comes, it is heard.
 */
function watchFinished(gateway: Gateway, onCleanup: (cleanup: () => unknown) => void) {
  const heard = new Map<string, UssdSessionRow[]>();
  const waiters = new Map<string, (row: UssdSessionRow) => void>();
  onCleanup(
    gateway.services.events.on('ussd.finished', (row) => {
      heard.set(row.id, [...(heard.get(row.id) ?? []), row]);
      waiters.get(row.id)?.(row);
    }),
  );
  return {
    of(id: string): Promise<UssdSessionRow> {
      const already = heard.get(id)?.[0];
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.set(id, resolve));
    },
    count(id: string): number {
      return heard.get(id)?.length ?? 0;
    },
  };
}

const ofType = (type: string) => (request: Received) => request.json?.type === type;

describe('ussd: codes dialled on the account\'s phones', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  /** A phone of the tenant, connected and subscribed to its USSD requests. */
  async function phone(owner: Tenant = fx.tenant): Promise<Phone & ReturnType<typeof phoneSide>> {
    const { device, token } = await registerDevice(fx.gateway, owner);
    const mqtt = await fx.clients.device(device.id, token);
    const granted = await mqtt.subscribe(topic(device.id, 'ussd'));
    expect(granted).to.deep.equal([1]);
    const connected = { id: device.id, mqtt };
    return Object.assign(connected, phoneSide(connected));
  }

  const dial = (deviceId: string, body: Record<string, unknown>, tenant: Tenant = fx.tenant) => tenant.api.post(`/devices/${deviceId}/ussd`, body);

  describe('when the network answers at once', () => {
    it('then the session is 202 pending, the phone gets the dial, and its answer completes the session as GET shows', async () => {
      const device = await phone();
      const started = await dial(device.id, { code: '*100#', sim: 1 });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect(Object.keys(started.body)).to.have.members(USSD_KEYS);
      expect(started.body).to.include({ device_id: device.id, code: '*100#', sim: 1, status: 'pending', message: null, error: null, timeout_seconds: 30, finished_at: null });
      expect(started.body.id).to.match(UUID);
      expectIsoTimestamp(started.body.expires_at, 'expires_at');
      expect(Date.parse(started.body.expires_at) - Date.parse(started.body.created_at)).to.equal(30_000);
      expect(started.body.history).to.deep.equal([{ from: 'client', text: '*100#', at: started.body.created_at }]);

      const request = await device.request((request) => request.session_id === started.body.id);
      expect(request).to.deep.equal({ session_id: started.body.id, step: 0, action: 'dial', code: '*100#', sim: 1, expires_at: started.body.expires_at });

      const counted = fx.gateway.services.metrics.value(REPORTS, { outcome: 'applied' });
      await device.answer({ session_id: started.body.id, step: 0, status: 'completed', message: 'Balance: 12.34 EUR' });
      expect(fx.gateway.services.metrics.value(REPORTS, { outcome: 'applied' })).to.equal(counted + 1);
      const read = await fx.tenant.api.get(`/ussd/${started.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ status: 'completed', message: 'Balance: 12.34 EUR', error: null, expires_at: null });
      expectIsoTimestamp(read.body.finished_at, 'finished_at');
      expect(read.body.history.map((said: { from: string; text: string }) => [said.from, said.text])).to.deep.equal([
        ['client', '*100#'],
        ['network', 'Balance: 12.34 EUR'],
      ]);
      // The same answer again (a QoS redelivery) is acknowledged and changes nothing.
      await device.answer({ session_id: started.body.id, step: 0, status: 'completed', message: 'Balance: 12.34 EUR' });
      expect((await fx.tenant.api.get(`/ussd/${started.body.id}`)).body).to.deep.equal(read.body);
      expect(fx.gateway.services.metrics.value(REPORTS, { outcome: 'unchanged' })).to.be.at.least(1);
      expect(device.mqtt.closed).to.equal(false);
    });

    it('then without sim the phone is told -2 (its default SIM), and timeout_seconds sets the wait', async () => {
      const device = await phone();
      const started = await dial(device.id, { code: '*#06#', timeout_seconds: 120 });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect(started.body).to.include({ sim: -2, timeout_seconds: 120 });
      expect(Date.parse(started.body.expires_at) - Date.parse(started.body.created_at)).to.equal(120_000);
      const request = await device.request((request) => request.session_id === started.body.id);
      expect(request).to.include({ sim: -2, code: '*#06#' });
    });
  });

  describe('when the network asks for a reply', () => {
    it('then the session waits with the menu, the reply goes to the phone as step 1, and the final answer completes it', async () => {
      const device = await phone();
      const { body: session } = await dial(device.id, { code: '*111#' });
      await device.request((request) => request.session_id === session.id && request.step === 0);
      await device.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: '1. Balance\n2. Bundles' });
      const waiting = await fx.tenant.api.get(`/ussd/${session.id}`);
      expect(waiting.body).to.include({ status: 'waiting_reply', message: '1. Balance\n2. Bundles', finished_at: null });

      const replied = await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '2' });
      expect(replied.status, JSON.stringify(replied.body)).to.equal(202);
      expect(replied.body).to.include({ status: 'pending', message: '1. Balance\n2. Bundles' });
      const reply = await device.request((request) => request.session_id === session.id && request.step === 1);
      expect(reply).to.deep.equal({ session_id: session.id, step: 1, action: 'reply', text: '2', expires_at: replied.body.expires_at });

      // A late repeat of the first menu (step 0) does not undo the reply.
      await device.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: '1. Balance\n2. Bundles' });
      expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('pending');

      await device.answer({ session_id: session.id, step: 1, status: 'completed', message: 'You bought 1 GB' });
      const done = await fx.tenant.api.get(`/ussd/${session.id}`);
      expect(done.body).to.include({ status: 'completed', message: 'You bought 1 GB' });
      expect(done.body.history.map((said: { from: string; text: string }) => `${said.from}:${said.text}`)).to.deep.equal([
        'client:*111#',
        'network:1. Balance\n2. Bundles',
        'client:2',
        'network:You bought 1 GB',
      ]);
      const again = await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '1' });
      expectError(again, 409, 'ussd_not_waiting');
    });

    it('then a reply to a session still pending is 409 ussd_not_waiting, and a bad reply text is 400', async () => {
      const device = await phone();
      const { body: session } = await dial(device.id, { code: '*111#' });
      expectError(await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '1' }), 409, 'ussd_not_waiting');
      await device.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: 'Menu' });
      for (const body of [{}, { text: '' }, { text: 'x'.repeat(183) }, { text: '1\n' }, { text: 1 }, { text: '1', extra: true }]) {
        expectError(await fx.tenant.api.post(`/ussd/${session.id}/reply`, body), 400, 'validation_failed');
      }
      expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('waiting_reply');
    });
  });

  describe('when the phone reports a failure', () => {
    it('then the session fails with the phone\'s reason, and a ussd.failed webhook carries it, signed', async () => {
      const receiver = await fx.receiver();
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['ussd.failed', 'ussd.completed']);
      fx.onCleanup(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));
      const device = await phone();
      const { body: session } = await dial(device.id, { code: '*999#' });
      await device.request((request) => request.session_id === session.id);
      await device.answer({ session_id: session.id, step: 0, status: 'failed', error: 'unknown application' });
      const read = await fx.tenant.api.get(`/ussd/${session.id}`);
      expect(read.body).to.include({ status: 'failed', error: 'unknown application', message: null, expires_at: null });

      const [request] = await receiver.waitFor(1, ofType('ussd.failed'));
      const event = verified(secret, request!);
      expectEnvelope(event, 'ussd.failed', fx.tenant.accountId);
      expect(event.data).to.deep.equal({ ussd: read.body });
      expect(receiver.received.filter(ofType('ussd.completed'))).to.have.length(0);
    });
  });

  describe('when the session completes and a webhook asks for ussd.completed', () => {
    it('then it is delivered once, signed, carrying the session as GET /ussd/{id} shows it', async () => {
      const receiver = await fx.receiver();
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['ussd.completed']);
      fx.onCleanup(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));
      const device = await phone();
      const { body: session } = await dial(device.id, { code: '*100#' });
      await device.answer({ session_id: session.id, step: 0, status: 'completed', message: 'Balance: 1.00 EUR' });
      await device.answer({ session_id: session.id, step: 0, status: 'completed', message: 'Balance: 1.00 EUR' });
      const [request] = await receiver.waitFor(1, ofType('ussd.completed'));
      const event = verified(secret, request!);
      expectEnvelope(event, 'ussd.completed', fx.tenant.accountId);
      expect(event.data).to.deep.equal({ ussd: (await fx.tenant.api.get(`/ussd/${session.id}`)).body });
      expect(event.data.ussd).to.include({ status: 'completed', message: 'Balance: 1.00 EUR' });
      // The repeated answer made no second delivery: the log has one.
      const log = await deliveryRowsOfType(fx, fx.tenant.accountId, 'ussd.completed');
      expect(log).to.have.length(1);
    });
  });

  describe('when the request is wrong', () => {
    const BAD: { what: string; body: Record<string, unknown>; field: string }[] = [
      { what: 'a code with letters', body: { code: '*100a#' }, field: 'code' },
      { what: 'a code without the closing #', body: { code: '*100' }, field: 'code' },
      { what: 'a code with a space', body: { code: '*100 #' }, field: 'code' },
      { what: 'a code that is too long', body: { code: `*${'1'.repeat(70)}#` }, field: 'code' },
      { what: 'no code', body: {}, field: 'code' },
      { what: 'a code that is a number', body: { code: 100 }, field: 'code' },
      { what: 'sim -1 (random makes no sense for USSD)', body: { code: '*100#', sim: -1 }, field: 'sim' },
      { what: 'sim 3', body: { code: '*100#', sim: 3 }, field: 'sim' },
      { what: 'timeout_seconds under 5', body: { code: '*100#', timeout_seconds: 1 }, field: 'timeout_seconds' },
      { what: 'timeout_seconds over 300', body: { code: '*100#', timeout_seconds: 301 }, field: 'timeout_seconds' },
      { what: 'an unknown field', body: { code: '*100#', phone: '+49' }, field: 'phone' },
    ];
    for (const bad of BAD) {
      it(`then ${bad.what} is 400 naming ${bad.field}, and the phone hears nothing`, async () => {
        const device = await phone();
        const reply = await dial(device.id, bad.body);
        expectError(reply, 400, 'validation_failed');
        expect(JSON.stringify(reply.body.error.details)).to.include(bad.field);
        expect(await fx.gateway.services.ussd.listForDevice(fx.tenant.accountId, device.id, 10)).to.have.length(0);
        expect(device.requests()).to.deep.equal([]);
      });
    }

    it('then a code with letters says in words what a code may hold', async () => {
      const device = await phone();
      const reply = await dial(device.id, { code: '*balance#' });
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.details[0].message).to.match(/digits, \* and # only/);
    });

    it('then another account\'s phone, and an unknown one, are 404; another account\'s session is 404 to read and to reply', async () => {
      const other = await fx.newTenant();
      const theirs = await phone(other);
      expectError(await dial(theirs.id, { code: '*100#' }), 404, 'device_not_found');
      expectError(await dial(UNKNOWN_ID, { code: '*100#' }), 404, 'device_not_found');
      expectError(await fx.tenant.api.get(`/devices/${theirs.id}/ussd`), 404, 'device_not_found');
      expect(theirs.requests()).to.deep.equal([]);
      const { body: session } = await dial(theirs.id, { code: '*111#' }, other);
      await theirs.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: 'Menu' });
      expectError(await fx.tenant.api.get(`/ussd/${session.id}`), 404, 'ussd_not_found');
      expectError(await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '1' }), 404, 'ussd_not_found');
      expectError(await fx.tenant.api.get(`/ussd/${UNKNOWN_ID}`), 404, 'ussd_not_found');
      expectError(await fx.tenant.api.get('/ussd/not-a-uuid'), 400);
      expect((await other.api.get(`/ussd/${session.id}`)).body.status).to.equal('waiting_reply');
    });

    it('then a phone that is not connected is 409 device_offline, and nothing is stored', async () => {
      const { device } = await fx.registerDevice();
      expectError(await dial(device.id, { code: '*100#' }), 409, 'device_offline');
      expect(await fx.gateway.services.ussd.listForDevice(fx.tenant.accountId, device.id, 10)).to.have.length(0);
    });

    it('then a second code while one session is open on the phone is 409 ussd_busy; once it ended, another may start', async () => {
      const device = await phone();
      const { body: first } = await dial(device.id, { code: '*100#' });
      expectError(await dial(device.id, { code: '*101#' }), 409, 'ussd_busy');
      await device.answer({ session_id: first.id, step: 0, status: 'completed', message: 'ok' });
      expect((await dial(device.id, { code: '*101#' })).status).to.equal(202);
    });

    it('then sms:send is needed to dial and reply, sms:read to read', async () => {
      const device = await phone();
      const reader = await fx.keyWith(['sms:read'] as Permission[]);
      expectError(await reader.post(`/devices/${device.id}/ussd`, { code: '*100#' }), 403, 'forbidden');
      const sender = await fx.keyWith(['sms:send'] as Permission[]);
      const started = await sender.post(`/devices/${device.id}/ussd`, { code: '*100#' });
      expect(started.status).to.equal(202);
      expectError(await sender.get(`/ussd/${started.body.id}`), 403, 'forbidden');
      expect((await reader.get(`/ussd/${started.body.id}`)).status).to.equal(200);
    });
  });

  describe('when a phone sends a bad USSD answer', () => {
    const valid = (sessionId: string) => ({ session_id: sessionId, step: 0, status: 'completed', message: 'Balance' });
    const BAD: { what: string; reason: string; payload: (sessionId: string) => string }[] = [
      { what: 'malformed JSON', reason: 'malformed_json', payload: () => '{"session_id":' },
      { what: 'an unknown status', reason: 'invalid_payload', payload: (id) => JSON.stringify({ ...valid(id), status: 'done' }) },
      { what: 'completed without the network\'s text', reason: 'invalid_payload', payload: (id) => JSON.stringify({ ...valid(id), message: undefined }) },
      { what: 'failed without a reason', reason: 'invalid_payload', payload: (id) => JSON.stringify({ session_id: id, step: 0, status: 'failed' }) },
      { what: 'a session id that is no UUID', reason: 'invalid_payload', payload: () => JSON.stringify(valid('session-1')) },
      { what: 'a negative step', reason: 'invalid_payload', payload: (id) => JSON.stringify({ ...valid(id), step: -1 }) },
      { what: 'an unknown field', reason: 'invalid_payload', payload: (id) => JSON.stringify({ ...valid(id), balance: 12 }) },
      { what: 'a NUL in the text', reason: 'invalid_payload', payload: (id) => JSON.stringify({ ...valid(id), message: 'a\u0000b' }) },
      { what: 'a session of no phone', reason: 'unknown_ussd_session', payload: () => JSON.stringify(valid(randomUUID())) },
    ];
    for (const bad of BAD) {
      it(`then ${bad.what} is counted as rejected (${bad.reason}), the session is untouched and the connection stays up`, async () => {
        const device = await phone();
        const { body: session } = await dial(device.id, { code: '*100#' });
        const counted = fx.gateway.services.metrics.value(REJECTED, { reason: bad.reason });
        await device.mqtt.publish(topic(device.id, 'ussd_status'), bad.payload(session.id), { qos: 2 });
        expect(fx.gateway.services.metrics.value(REJECTED, { reason: bad.reason }), `${REJECTED}{reason="${bad.reason}"}`).to.equal(counted + 1);
        expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('pending');
        expect(device.mqtt.closed, 'the connection stays up').to.equal(false);
        await device.answer(valid(session.id));
        expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('completed');
      });
    }

    it('then another phone\'s session is not touched by it (counted as unknown)', async () => {
      const owner = await phone();
      const intruder = await phone();
      const { body: session } = await dial(owner.id, { code: '*100#' });
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'unknown_ussd_session' });
      await intruder.answer(valid(session.id));
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'unknown_ussd_session' })).to.equal(counted + 1);
      expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('pending');
    });
  });

  describe('when a phone has several sessions', () => {
    it('then GET /devices/{id}/ussd pages them newest first', async () => {
      const device = await phone();
      const ids: string[] = [];
      for (const code of ['*100#', '*101#', '*102#']) {
        const { body } = await dial(device.id, { code });
        await device.answer({ session_id: body.id, step: 0, status: 'completed', message: code });
        ids.push(body.id);
      }
      const first = await fx.tenant.api.get(`/devices/${device.id}/ussd?limit=2`);
      expect(first.status).to.equal(200);
      expect(first.body.data.map((session: { id: string }) => session.id)).to.deep.equal([ids[2], ids[1]]);
      expect(first.body.next_cursor).to.be.a('string');
      const second = await fx.tenant.api.get(`/devices/${device.id}/ussd?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.data.map((session: { id: string }) => session.id)).to.deep.equal([ids[0]]);
      expect(second.body.next_cursor).to.equal(null);
      expectError(await fx.tenant.api.get(`/devices/${device.id}/ussd?cursor=junk`), 400, 'validation_failed');
    });
  });

  describe('when the simulated phone answers', () => {
    it('then *100# completes with the balance, *111# asks for a reply and completes, and an unknown code fails', async () => {
      const device = await fx.connectDevice();
      const ended = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
      const balance = await dial(device.id, { code: '*100#' });
      expect(balance.status).to.equal(202);
      expect(await ended.of(balance.body.id)).to.include({ status: 'completed', message: 'Balance: 12.34 EUR' });

      // The simulator answers with QoS 2: its answer is committed once it has been told so.
      const menuShown = new Promise<void>((resolve) => {
        const heard = (answer: { status: string }) => {
          if (answer.status !== 'waiting_reply') return;
          device.off('ussd', heard);
          resolve();
        };
        device.on('ussd', heard);
      });
      const menu = await dial(device.id, { code: '*111#' });
      await menuShown;
      expect((await fx.tenant.api.get(`/ussd/${menu.body.id}`)).body).to.include({ status: 'waiting_reply' });
      expect((await fx.tenant.api.post(`/ussd/${menu.body.id}/reply`, { text: '1' })).status).to.equal(202);
      expect(await ended.of(menu.body.id)).to.include({ status: 'completed', message: 'Balance: 12.34 EUR' });

      const unknown = await dial(device.id, { code: '*555#' });
      expect(await ended.of(unknown.body.id)).to.include({ status: 'failed', error: 'unknown application' });
    });
  });
});

describe('ussd: a session nobody answers in time', () => {
  // One second: the expiry sweep runs every second, so a session ends within about two.
  const fx = useGateway({ config: { webhooks: webhookConfig(), ussdTimeoutMs: 1_000 } });

  async function phone(): Promise<Phone & ReturnType<typeof phoneSide>> {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    const mqtt = await fx.clients.device(device.id, token);
    await mqtt.subscribe(topic(device.id, 'ussd'));
    const connected = { id: device.id, mqtt };
    return Object.assign(connected, phoneSide(connected));
  }

  it('then it fails with error "timeout", ussd.failed is delivered, the phone is told to cancel, and a later answer is ignored and counted', async function () {
    this.timeout(15_000);
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['ussd.failed']);
    fx.onCleanup(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));
    const device = await phone();
    const watch = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
    const started = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*100#' });
    expect(started.body.timeout_seconds).to.equal(1);
    const ended = await watch.of(started.body.id);
    expect(ended).to.include({ status: 'failed', error: 'timeout' });
    expect(ended.finished_at!.getTime()).to.be.at.least(Date.parse(started.body.expires_at));

    const read = await fx.tenant.api.get(`/ussd/${started.body.id}`);
    expect(read.body).to.include({ status: 'failed', error: 'timeout', expires_at: null });
    const cancel = await device.request((request) => request.session_id === started.body.id && request.action === 'cancel');
    expect(cancel).to.deep.equal({ session_id: started.body.id, step: 0, action: 'cancel', reason: 'timeout' });
    const [request] = await receiver.waitFor(1, ofType('ussd.failed'));
    expect(verified(secret, request!).data.ussd).to.deep.equal(read.body);

    const late = fx.gateway.services.metrics.value(REPORTS, { outcome: 'late' });
    await device.answer({ session_id: started.body.id, step: 0, status: 'completed', message: 'Balance: 12.34 EUR' });
    expect(fx.gateway.services.metrics.value(REPORTS, { outcome: 'late' })).to.equal(late + 1);
    expect((await fx.tenant.api.get(`/ussd/${started.body.id}`)).body).to.deep.equal(read.body);
    expect(device.mqtt.closed).to.equal(false);
  });

  it('then a menu left without a reply times out too', async function () {
    this.timeout(15_000);
    const device = await phone();
    const watch = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
    const { body: session } = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*111#' });
    await device.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: 'Menu' });
    const ended = await watch.of(session.id);
    expect(ended).to.include({ status: 'failed', error: 'timeout', message: 'Menu' });
    expectError(await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '1' }), 409, 'ussd_not_waiting');
  });

  it('then a session started on one node is timed out by another, from the database alone', async function () {
    // Two nodes share a PostgreSQL; an embedded database belongs to one process.
    if (testDatabase().kind !== 'postgres') this.skip();
    this.timeout(15_000);
    const second = await fx.startGateway({ webhooks: webhookConfig(), ussdTimeoutMs: 1_000 });
    const bySecond = watchFinished(second, (cleanup) => fx.onCleanup(cleanup));
    const byFirst = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
    // The node that took the request and holds the phone does not sweep: only the other can end it.
    await fx.gateway.services.ussd.stopExpiry();
    fx.onCleanup(() => fx.gateway.services.ussd.startExpiry());
    const device = await phone();
    const { body: session } = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*100#' });
    expect(await bySecond.of(session.id)).to.include({ status: 'failed', error: 'timeout' });
    expect(byFirst.count(session.id)).to.equal(0);
    expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body).to.include({ status: 'failed', error: 'timeout' });
  });
});

describe('ussd: the deadline holds before any sweep has run', () => {
  // The gateway's clock is the test's; the sweep is stopped, so only the deadline itself decides.
  const clock = new ManualClock();
  const fx = useGateway({ clock });
  beforeEach(async () => {
    await fx.gateway.services.ussd.stopExpiry();
    fx.onCleanup(() => fx.gateway.services.ussd.startExpiry());
  });

  async function phone(): Promise<Phone & ReturnType<typeof phoneSide>> {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    const mqtt = await fx.clients.device(device.id, token);
    await mqtt.subscribe(topic(device.id, 'ussd'));
    const connected = { id: device.id, mqtt };
    return Object.assign(connected, phoneSide(connected));
  }

  it('then an answer past expires_at is late: the session fails with "timeout" there and then, announced once', async () => {
    const watch = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
    const device = await phone();
    const { body: session } = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*100#' });
    clock.advance(30_000);
    const late = fx.gateway.services.metrics.value(REPORTS, { outcome: 'late' });
    await device.answer({ session_id: session.id, step: 0, status: 'completed', message: 'Balance' });
    expect(fx.gateway.services.metrics.value(REPORTS, { outcome: 'late' })).to.equal(late + 1);
    expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body).to.include({ status: 'failed', error: 'timeout', message: null });
    expect(await watch.of(session.id)).to.include({ status: 'failed', error: 'timeout' });
    await fx.gateway.services.ussd.expireDue();
    expect(watch.count(session.id), 'a sweep after it finds nothing to end').to.equal(1);
  });

  it('then a reply past the menu\'s deadline is 409 ussd_not_waiting, the session fails with "timeout" and the phone is told to cancel', async () => {
    const device = await phone();
    const { body: session } = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*111#', timeout_seconds: 60 });
    clock.advance(59_000);
    await device.answer({ session_id: session.id, step: 0, status: 'waiting_reply', message: 'Menu' });
    // The menu gave the client a full wait of its own: 59 s later it may still reply...
    const waiting = await fx.tenant.api.get(`/ussd/${session.id}`);
    expect(Date.parse(waiting.body.expires_at) - clock.now()).to.equal(60_000);
    clock.advance(60_000);
    // ...but not 60 s later.
    const reply = await fx.tenant.api.post(`/ussd/${session.id}/reply`, { text: '1' });
    expectError(reply, 409, 'ussd_not_waiting');
    expect(reply.body.error.message).to.include('timed out');
    expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body).to.include({ status: 'failed', error: 'timeout', message: 'Menu' });
    expect(await device.request((request) => request.session_id === session.id && request.action === 'cancel')).to.include({ reason: 'timeout', step: 0 });
    expect(device.requests().filter((request) => request.action === 'reply')).to.deep.equal([]);
  });

  it('then the sweep ends what is overdue by the gateway\'s clock, and nothing before', async () => {
    const watch = watchFinished(fx.gateway, (cleanup) => fx.onCleanup(cleanup));
    const device = await phone();
    const { body: session } = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*100#' });
    clock.advance(29_999);
    await fx.gateway.services.ussd.expireDue();
    expect((await fx.tenant.api.get(`/ussd/${session.id}`)).body.status).to.equal('pending');
    clock.advance(1);
    await fx.gateway.services.ussd.expireDue();
    expect(await watch.of(session.id)).to.include({ status: 'failed', error: 'timeout' });
  });
});
