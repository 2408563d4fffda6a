// Idempotency-Key on the requests that create SMS: POST /api/ext/v1/sms, POST /api/ext/v1/sms/bulk
// and legacy POST /sms/send. The same key with the same request from the same account within 24
// hours replays the first response (header Idempotent-Replayed: true) and creates nothing more;
// the same key with another request is 422 idempotency_key_reused; keys of different accounts
// never meet; a refused request stores nothing.
import { expect } from 'chai';
import { connect } from 'node:net';
import type { Gateway } from '../../src/gateway.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, type Reply, type Tenant } from '../support/tenant.ts';
import { expectError, UUID } from '../support/expectations.ts';
import { OBJECT_ID } from '../support/legacy.ts';

const PHONE = '+79161234567';
const REPLAYED = 'idempotent-replayed';

let keySequence = 0;
/** A fresh, valid Idempotency-Key. */
function newKey(): string {
  return `key-${process.pid}-${Date.now()}-${++keySequence}`;
}

function send(client: ApiClient, path: string, body: unknown, key: string): Promise<Reply> {
  return client.request('POST', path, body, { 'idempotency-key': key });
}

/** The account's stored SMS (Extended API, all pages). */
async function storedSms(tenant: Tenant): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const reply: Reply = await tenant.api.get(`/sms?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    all.push(...reply.body.data);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return all;
}

function expectFirst(reply: Reply, status: number): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.headers.get(REPLAYED), 'a first response is not marked replayed').to.equal(null);
}

function expectReplayOf(reply: Reply, first: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(first.status);
  expect(reply.headers.get(REPLAYED)).to.equal('true');
  expect(reply.body).to.deep.equal(first.body);
  // The same text, keys in the same order: a client may compare the answers as they came.
  expect(JSON.stringify(reply.body)).to.equal(JSON.stringify(first.body));
}

/**
 * Sends a POST over a raw connection and hangs up as soon as the answer starts to arrive,
 * without reading it: a client whose connection was cut while the response was on its way.
 */
function postAndHangUp(gateway: Gateway, tenant: Tenant, path: string, body: unknown, key: string): Promise<void> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(gateway.httpPort, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.key}\r\n` +
          `Content-Type: application/json\r\nIdempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer started within 5000 ms'));
    }, 5_000);
    socket.once('data', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('Idempotency-Key', () => {
  const fx = useGateway();


  describe('on POST /api/ext/v1/sms', () => {
    const body = { phone: PHONE, message: 'idempotent' };

    it('when the same request is sent twice with one key, then the second replays the first response', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(first, 201);
      expect(first.body.id).to.match(UUID);
      const second = await send(fx.tenant.api, '/sms', body, key);
      expectReplayOf(second, first);
    });

    it('when the same request is sent twice with one key, then only one SMS exists', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(first, 201);
      await send(fx.tenant.api, '/sms', body, key);
      await send(fx.tenant.api, '/sms', body, key);
      const stored = await storedSms(fx.tenant);
      expect(stored.map((sms) => sms.id)).to.deep.equal([first.body.id]);
    });

    it('when the same body comes with its fields in another order, then it is the same request and is replayed', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', { phone: PHONE, message: 'order', priority: 3 }, key);
      expectFirst(first, 201);
      const second = await send(fx.tenant.api, '/sms', { priority: 3, message: 'order', phone: PHONE }, key);
      expectReplayOf(second, first);
    });

    it('when another API key of the same account sends the same request with the same key, then it is replayed', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(first, 201);
      const other = await fx.keyWith(['sms:send']);
      expectReplayOf(await send(other, '/sms', body, key), first);
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });

    it('when requests without a key are repeated, then each creates its own SMS', async () => {
      const first = await fx.tenant.api.post('/sms', body);
      const second = await fx.tenant.api.post('/sms', body);
      expectFirst(first, 201);
      expectFirst(second, 201);
      expect(second.body.id).not.to.equal(first.body.id);
      expect(await storedSms(fx.tenant)).to.have.length(2);
    });

    it('when the same key comes with a different body, then it answers 422 idempotency_key_reused and creates nothing', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(first, 201);
      const reused = await send(fx.tenant.api, '/sms', { ...body, message: 'something else' }, key);
      expectError(reused, 422, 'idempotency_key_reused');
      expect(reused.headers.get(REPLAYED)).to.equal(null);
      const stored = await storedSms(fx.tenant);
      expect(stored.map((sms) => sms.id)).to.deep.equal([first.body.id]);
    });

    it('when a key was refused for a different body, then the first request is still replayed', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(first, 201);
      expectError(await send(fx.tenant.api, '/sms', { ...body, message: 'other' }, key), 422, 'idempotency_key_reused');
      expectReplayOf(await send(fx.tenant.api, '/sms', body, key), first);
    });

    it('when two accounts use the same key, then each gets its own SMS and nothing is replayed', async () => {
      const key = newKey();
      const other = await fx.newTenant();
      const mine = await send(fx.tenant.api, '/sms', body, key);
      const theirs = await send(other.api, '/sms', { ...body, message: 'theirs' }, key);
      expectFirst(mine, 201);
      expectFirst(theirs, 201);
      expect(theirs.body.id).not.to.equal(mine.body.id);
      expect((await storedSms(fx.tenant)).map((sms) => sms.id)).to.deep.equal([mine.body.id]);
      expect((await storedSms(other)).map((sms) => sms.id)).to.deep.equal([theirs.body.id]);
    });

    it('when two accounts send the same body with the same key, then neither sees the other\'s response', async () => {
      const key = newKey();
      const other = await fx.newTenant();
      const mine = await send(fx.tenant.api, '/sms', body, key);
      const theirs = await send(other.api, '/sms', body, key);
      expectFirst(mine, 201);
      expectFirst(theirs, 201);
      expect(theirs.body.id).not.to.equal(mine.body.id);
    });

    it('when the first request is refused with 400 (bad phone), then nothing is stored and the corrected request with the key gets 201', async () => {
      const key = newKey();
      const refused = await send(fx.tenant.api, '/sms', { phone: 'not a phone', message: 'x' }, key);
      expectError(refused, 400, 'invalid_phone');
      expect(await storedSms(fx.tenant)).to.have.length(0);
      const corrected = await send(fx.tenant.api, '/sms', { phone: PHONE, message: 'x' }, key);
      expectFirst(corrected, 201);
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });

    it('when the first request is refused with 503 (no_store, no device online), then the retry with the key is not a replay of the 503', async () => {
      const key = newKey();
      const refused = await send(fx.tenant.api, '/sms', { ...body, no_store: true }, key);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
      const stored = await send(fx.tenant.api, '/sms', body, key);
      expectFirst(stored, 201);
    });

    it('when the device the first request named was deleted since, then the retry still replays the first response', async () => {
      const key = newKey();
      const { device } = await fx.registerDevice('soon deleted');
      const named = { ...body, device_id: device.id };
      const first = await send(fx.tenant.api, '/sms', named, key);
      expectFirst(first, 201);
      const deleted = await fx.tenant.api.delete(`/devices/${device.id}`);
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
      expectReplayOf(await send(fx.tenant.api, '/sms', named, key), first);
    });

    it('when 10 requests with one key arrive at once, then exactly one SMS is created and all answer its id', async () => {
      const key = newKey();
      const replies = await Promise.all(Array.from({ length: 10 }, () => send(fx.tenant.api, '/sms', body, key)));
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      const ids = new Set(replies.map((reply) => reply.body.id));
      expect(ids.size, 'one id in every answer').to.equal(1);
      expect(replies.filter((reply) => reply.headers.get(REPLAYED) === null), 'exactly one first response').to.have.length(1);
      expect(replies.filter((reply) => reply.headers.get(REPLAYED) === 'true')).to.have.length(9);
      const stored = await storedSms(fx.tenant);
      expect(stored.map((sms) => sms.id)).to.deep.equal([...ids]);
    });

    it('when a client\'s POST was cut off while the answer was on its way, then sending it again does not create a second SMS', async () => {
      const key = newKey();
      await postAndHangUp(fx.gateway, fx.tenant, '/api/ext/v1/sms', body, key);
      const retry = await send(fx.tenant.api, '/sms', body, key);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
      expect(retry.headers.get(REPLAYED)).to.equal('true');
      const stored = await storedSms(fx.tenant);
      expect(stored.map((sms) => sms.id)).to.deep.equal([retry.body.id]);
    });
  });

  describe('on POST /api/ext/v1/sms/bulk', () => {
    const body = { messages: [{ phone: PHONE, message: 'one' }, { phone: PHONE, message: 'two' }, { phone: PHONE, message: 'three' }] };

    it('when the same batch is sent twice with one key, then the second replays the first response and no SMS is duplicated', async () => {
      const key = newKey();
      const first = await send(fx.tenant.api, '/sms/bulk', body, key);
      expectFirst(first, 201);
      expect(first.body.data).to.have.length(3);
      const second = await send(fx.tenant.api, '/sms/bulk', body, key);
      expectReplayOf(second, first);
      const stored = await storedSms(fx.tenant);
      expect(stored.map((sms) => sms.id)).to.have.members(first.body.data.map((sms: { id: string }) => sms.id));
      expect(stored).to.have.length(3);
    });

    it('when the same key comes with a different batch, then it answers 422 idempotency_key_reused', async () => {
      const key = newKey();
      expectFirst(await send(fx.tenant.api, '/sms/bulk', body, key), 201);
      const reused = await send(fx.tenant.api, '/sms/bulk', { messages: body.messages.slice(0, 2) }, key);
      expectError(reused, 422, 'idempotency_key_reused');
      expect(await storedSms(fx.tenant)).to.have.length(3);
    });

    it('when a batch refused with 400 is corrected and sent with the same key, then it gets 201', async () => {
      const key = newKey();
      const bad = { messages: [...body.messages, { phone: 'nope', message: 'four' }] };
      expectError(await send(fx.tenant.api, '/sms/bulk', bad, key), 400);
      expect(await storedSms(fx.tenant)).to.have.length(0);
      const corrected = await send(fx.tenant.api, '/sms/bulk', body, key);
      expectFirst(corrected, 201);
      expect(await storedSms(fx.tenant)).to.have.length(3);
    });

    it('when 5 copies of a batch arrive at once with one key, then the batch is created once, and a copy turned away by the bulk limit gets the same answer when it retries', async () => {
      const key = newKey();
      const first = await Promise.all(Array.from({ length: 5 }, () => send(fx.tenant.api, '/sms/bulk', body, key)));
      // An account may have 2 bulk sends under way at once: copies past that are told to retry
      // (429, Retry-After), like any other bulk send; their retries are replays.
      for (const reply of first) expect(reply.status, JSON.stringify(reply.body)).to.be.oneOf([201, 429]);
      for (const reply of first.filter((reply) => reply.status === 429)) expect(reply.body.error.code).to.equal('too_many_bulk_requests');
      const replies = [];
      for (const reply of first) replies.push(reply.status === 201 ? reply : await send(fx.tenant.api, '/sms/bulk', body, key));
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(replies.filter((reply) => reply.headers.get(REPLAYED) === null)).to.have.length(1);
      const ids = replies[0]!.body.data.map((sms: { id: string }) => sms.id);
      for (const reply of replies) expect(reply.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal(ids);
      expect(await storedSms(fx.tenant)).to.have.length(3);
    });
  });

  describe('on legacy POST /sms/send', () => {
    const body = { phone_number: PHONE, message: 'legacy idempotent' };

    it('when the same request is sent twice with one key, then the second replays the first response and one SMS exists', async () => {
      const key = newKey();
      const first = await send(fx.tenant.root, '/sms/send', body, key);
      expectFirst(first, 200);
      expect(first.body.id).to.match(OBJECT_ID);
      const second = await send(fx.tenant.root, '/sms/send', body, key);
      expectReplayOf(second, first);
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });

    it('when the same key comes with a different body, then it answers 422 idempotency_key_reused', async () => {
      const key = newKey();
      expectFirst(await send(fx.tenant.root, '/sms/send', body, key), 200);
      const reused = await send(fx.tenant.root, '/sms/send', { ...body, message: 'changed' }, key);
      expect(reused.status, JSON.stringify(reused.body)).to.equal(422);
      expect(reused.body.error.code).to.equal('idempotency_key_reused');
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });

    it('when 10 requests with one key arrive at once, then exactly one SMS is created', async () => {
      const key = newKey();
      const replies = await Promise.all(Array.from({ length: 10 }, () => send(fx.tenant.root, '/sms/send', body, key)));
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(new Set(replies.map((reply) => reply.body.id)).size).to.equal(1);
      expect(replies.filter((reply) => reply.headers.get(REPLAYED) === null)).to.have.length(1);
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });
  });

  describe('when one key is used on different endpoints', () => {
    it('then a key used on POST /sms is refused on POST /sms/bulk with 422 (another operation)', async () => {
      const key = newKey();
      expectFirst(await send(fx.tenant.api, '/sms', { phone: PHONE, message: 'shared' }, key), 201);
      const bulk = await send(fx.tenant.api, '/sms/bulk', { messages: [{ phone: PHONE, message: 'shared' }] }, key);
      expectError(bulk, 422, 'idempotency_key_reused');
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });

    it('then a key used on POST /sms is refused on legacy POST /sms/send with 422', async () => {
      const key = newKey();
      expectFirst(await send(fx.tenant.api, '/sms', { phone: PHONE, message: 'shared' }, key), 201);
      const legacy = await send(fx.tenant.root, '/sms/send', { phone_number: PHONE, message: 'shared' }, key);
      expect(legacy.status, JSON.stringify(legacy.body)).to.equal(422);
      expect(legacy.body.error.code).to.equal('idempotency_key_reused');
      expect(await storedSms(fx.tenant)).to.have.length(1);
    });
  });

  describe('when the key is malformed', () => {
    const body = { phone: PHONE, message: 'bad key' };
    const cases: [string, string][] = [
      ['300 characters long', 'k'.repeat(300)],
      ['256 characters long', 'k'.repeat(256)],
      ['holding a space', 'my key'],
      ['holding a non-ASCII letter', 'clé'],
    ];
    for (const [what, key] of cases) {
      it(`then a key ${what} is refused with 400 and nothing is created`, async () => {
        const reply = await send(fx.tenant.api, '/sms', body, key);
        expectError(reply, 400, 'validation_failed');
        expect(reply.body.error.details.map((detail: { field: string }) => detail.field)).to.include('Idempotency-Key');
        expect(await storedSms(fx.tenant)).to.have.length(0);
      });
    }

    it('then a key of 255 visible ASCII characters is accepted', async () => {
      const reply = await send(fx.tenant.api, '/sms', body, 'k'.repeat(254) + '~');
      expectFirst(reply, 201);
    });

    it('then a malformed key is refused on POST /sms/bulk too', async () => {
      const reply = await send(fx.tenant.api, '/sms/bulk', { messages: [body] }, 'k'.repeat(300));
      expectError(reply, 400, 'validation_failed');
      expect(await storedSms(fx.tenant)).to.have.length(0);
    });

    it('then a malformed key is refused on legacy POST /sms/send too', async () => {
      const reply = await send(fx.tenant.root, '/sms/send', { phone_number: PHONE, message: 'bad key' }, 'my key');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
      expect(await storedSms(fx.tenant)).to.have.length(0);
    });
  });
});

describe('Idempotency-Key: the 24-hour window', () => {
  const HOUR = 60 * 60 * 1000;
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const fx = useGateway({ clock });
  const body = { phone: PHONE, message: 'a day later' };

  it('when the same request comes 23 hours later, then it is still replayed', async () => {
    const key = newKey();
    const first = await send(fx.tenant.api, '/sms', body, key);
    expectFirst(first, 201);
    clock.advance(23 * HOUR);
    expectReplayOf(await send(fx.tenant.api, '/sms', body, key), first);
    expect(await storedSms(fx.tenant)).to.have.length(1);
  });

  it('when the same request comes more than 24 hours later, then the key is new again and a second SMS is created', async () => {
    const key = newKey();
    const first = await send(fx.tenant.api, '/sms', body, key);
    expectFirst(first, 201);
    clock.advance(24 * HOUR + 60_000);
    const later = await send(fx.tenant.api, '/sms', body, key);
    expectFirst(later, 201);
    expect(later.body.id).not.to.equal(first.body.id);
    expect(await storedSms(fx.tenant)).to.have.length(2);
  });
});
