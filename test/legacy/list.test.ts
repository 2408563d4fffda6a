// Legacy GET /sms: limit required 1..100, offset the 1-based page number (default 1; 0 is the
// first page too, see offset-zero.test.ts), newest first, pagination echoing limit and offset,
// total_records, tenancy, and a case-insensitive substring search over message, message_status
// and phone_number that takes %, _ and \ literally.
import { expect } from 'chai';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient, type Reply, type Tenant } from '../support/tenant.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { RawClients } from '../support/mqtt.ts';
import {
  allBut,
  deviceRow,
  driveTo,
  expectLegacySms,
  legacyGet,
  legacyKeyWith,
  legacySend,
  nextMillisecond,
  PHONE,
  uuidOfMessage,
} from '../support/legacy.ts';

const OTHER_PHONE = '+79031112233';

describe('legacy API: GET /sms', () => {
  const fx = useGateway();


  /** GET /sms with these query parameters (encoded here). */
  function list(params: Record<string, string | number>, client: ApiClient = fx.tenant.root): Promise<Reply> {
    const query = new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]));
    return client.get(`/sms?${query}`);
  }

  /** GET /sms that must succeed; every SMS in it has the legacy SMS object's shape. */
  async function listOk(params: Record<string, string | number>, client: ApiClient = fx.tenant.root): Promise<any> {
    const reply = await list(params, client);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(Object.keys(reply.body)).to.have.members(['pagination', 'sms_list']);
    expect(Object.keys(reply.body.pagination)).to.have.members(['total_records', 'limit', 'offset']);
    // Far below LEGACY_COUNT_CAP (1,000 by default) every count here is exact (list-count-cap.test.ts goes past it).
    expect(reply.headers.get('x-total-records-exact'), 'X-Total-Records-Exact').to.equal('true');
    expect(reply.body.sms_list).to.be.an('array');
    for (const sms of reply.body.sms_list) expectLegacySms(sms);
    return reply.body;
  }

  const ids = (body: { sms_list: { id: string }[] }) => body.sms_list.map((sms) => sms.id);
  const messages = (body: { sms_list: { message: string }[] }) => body.sms_list.map((sms) => sms.message);

  /** Sends `count` SMS one after another, each strictly newer than the last; ids oldest first. */
  async function sendMany(count: number, of: Tenant = fx.tenant, message = (i: number) => `sms ${i + 1}`): Promise<string[]> {
    const sent: string[] = [];
    for (let i = 0; i < count; i++) {
      await nextMillisecond();
      sent.push(await legacySend(of, { message: message(i) }));
    }
    return sent;
  }

  describe('when limit is missing or out of range', () => {
    it('then no limit is a 400 naming limit', async () => {
      await sendMany(1);
      const reply = await fx.tenant.root.get('/sms');
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('limit');
    });

    for (const limit of ['0', '101', '-1', '1000', 'ten', '1.5', '']) {
      it(`then limit=${JSON.stringify(limit)} is a 400 naming limit`, async () => {
        const reply = await list({ limit });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('limit');
      });
    }

    it('then limit given twice is a 400, not a 500', async () => {
      expectError(await fx.tenant.root.get('/sms?limit=1&limit=2'), 400);
    });
  });

  describe('when limit is within 1..100', () => {
    it('then limit 1 returns the newest SMS alone', async () => {
      const sent = await sendMany(3);
      const body = await listOk({ limit: 1 });
      expect(ids(body)).to.deep.equal([sent[2]]);
      expect(body.pagination).to.deep.equal({ total_records: 3, limit: 1, offset: 1 });
    });

    it('then limit 100 returns 100 of 101 SMS, and page 2 the oldest one', async function () {
      this.timeout(60_000);
      const sent = await sendMany(101);
      const first = await listOk({ limit: 100 });
      expect(ids(first)).to.deep.equal(sent.slice(1).reverse());
      expect(first.pagination).to.deep.equal({ total_records: 101, limit: 100, offset: 1 });
      const second = await listOk({ limit: 100, offset: 2 });
      expect(ids(second)).to.deep.equal([sent[0]]);
      expect(second.pagination).to.deep.equal({ total_records: 101, limit: 100, offset: 2 });
    });

    it('then an account without SMS gets an empty list and total_records 0', async () => {
      expect(await listOk({ limit: 10 })).to.deep.equal({ pagination: { total_records: 0, limit: 10, offset: 1 }, sms_list: [] });
    });
  });

  describe('when paging through 25 SMS, newest first', () => {
    let sent: string[];
    let newestFirst: string[];
    beforeEach(async () => {
      sent = await sendMany(25);
      newestFirst = [...sent].reverse();
    });

    it('then the list is newest first and each record is the SMS /sms/get shows', async () => {
      const body = await listOk({ limit: 100 });
      expect(ids(body)).to.deep.equal(newestFirst);
      expect(messages(body)).to.deep.equal(newestFirst.map((_id, i) => `sms ${25 - i}`));
      for (const sms of body.sms_list.slice(0, 3)) expect(await legacyGet(fx.tenant, sms.id)).to.deep.equal(sms);
    });

    it('then without offset the first page is returned and offset 1 is echoed', async () => {
      const body = await listOk({ limit: 10 });
      expect(ids(body)).to.deep.equal(newestFirst.slice(0, 10));
      expect(body.pagination).to.deep.equal({ total_records: 25, limit: 10, offset: 1 });
      expect(await listOk({ limit: 10, offset: 1 })).to.deep.equal(body);
    });

    it('then offset 2 with limit 10 returns records 11-20', async () => {
      const body = await listOk({ limit: 10, offset: 2 });
      expect(ids(body)).to.deep.equal(newestFirst.slice(10, 20));
      expect(messages(body)).to.deep.equal(['sms 15', 'sms 14', 'sms 13', 'sms 12', 'sms 11', 'sms 10', 'sms 9', 'sms 8', 'sms 7', 'sms 6']);
      expect(body.pagination).to.deep.equal({ total_records: 25, limit: 10, offset: 2 });
    });

    it('then offset 3 with limit 10 returns the last 5 records', async () => {
      const body = await listOk({ limit: 10, offset: 3 });
      expect(ids(body)).to.deep.equal(newestFirst.slice(20));
      expect(body.pagination).to.deep.equal({ total_records: 25, limit: 10, offset: 3 });
    });

    for (const offset of [4, 100, 1_000_000]) {
      it(`then offset ${offset}, past the end, is a 200 with an empty sms_list and total_records 25`, async () => {
        expect(await listOk({ limit: 10, offset })).to.deep.equal({ pagination: { total_records: 25, limit: 10, offset }, sms_list: [] });
      });
    }

    it('then the pages of limit 7 together hold every SMS once, in order', async () => {
      const seen: string[] = [];
      for (let offset = 1; offset <= 4; offset++) {
        const body = await listOk({ limit: 7, offset });
        expect(body.pagination).to.deep.equal({ total_records: 25, limit: 7, offset });
        seen.push(...ids(body));
      }
      expect(seen).to.deep.equal(newestFirst);
    });

    it('then an SMS sent later comes first and shifts the pages by one', async () => {
      await nextMillisecond();
      const newest = await legacySend(fx.tenant, { message: 'newest' });
      const first = await listOk({ limit: 10 });
      expect(ids(first)).to.deep.equal([newest, ...newestFirst.slice(0, 9)]);
      expect(ids(await listOk({ limit: 10, offset: 2 }))).to.deep.equal(newestFirst.slice(9, 19));
      expect(first.pagination.total_records).to.equal(26);
    });
  });

  describe('when offset is not a page number', () => {
    // 0 is a page number here: the first page (test/legacy/offset-zero.test.ts).
    for (const offset of ['-1', 'two', '1.5', '']) {
      it(`then offset=${JSON.stringify(offset)} is a 400 naming offset`, async () => {
        const reply = await list({ limit: 10, offset });
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('offset');
      });
    }
  });

  describe('when another account has SMS', () => {
    it('then they are never listed or counted, with or without a search', async () => {
      const other = await fx.newTenant();
      await sendMany(3, other, (i) => `shared word ${i}`);
      const mine = await sendMany(2, fx.tenant, (i) => `shared word mine ${i}`);

      const all = await listOk({ limit: 100 });
      expect(ids(all)).to.deep.equal([...mine].reverse());
      expect(all.pagination.total_records).to.equal(2);

      const searched = await listOk({ limit: 100, search: 'shared word' });
      expect(ids(searched)).to.deep.equal([...mine].reverse());
      expect(searched.pagination.total_records).to.equal(2);

      const waiting = await listOk({ limit: 100, search: 'waiting' });
      expect(waiting.pagination.total_records).to.equal(2);
      const page2 = await listOk({ limit: 1, offset: 3 });
      expect(page2).to.deep.equal({ pagination: { total_records: 2, limit: 1, offset: 3 }, sms_list: [] });
    });
  });

  describe('when searching the message', () => {
    it('then the search is a case-insensitive substring ("HeLLo" finds "hello world")', async () => {
      for (const message of ['hello world', 'Say HELLO!', 'goodbye', 'othello? no: hell o']) {
        await nextMillisecond();
        await legacySend(fx.tenant, { message });
      }
      const body = await listOk({ limit: 10, search: 'HeLLo' });
      expect(messages(body)).to.deep.equal(['othello? no: hell o', 'Say HELLO!', 'hello world']);
      expect(body.pagination.total_records).to.equal(3);
      expect(messages(await listOk({ limit: 10, search: 'ODBY' }))).to.deep.equal(['goodbye']);
      expect(messages(await listOk({ limit: 10, search: 'nothing like it' }))).to.deep.equal([]);
    });

    it('then an empty search is no search: every SMS is listed and counted', async () => {
      for (const message of ['one', 'two']) await legacySend(fx.tenant, { message });
      const body = await listOk({ limit: 10, search: '' });
      expect(body.pagination.total_records).to.equal(2);
      expect(body.sms_list).to.have.length(2);
    });

    it('then Cyrillic is matched without regard to case ("ПрИвЕт" finds "привет мир")', async () => {
      for (const message of ['привет мир', 'ПРИВЕТ всем', 'пока']) {
        await nextMillisecond();
        await legacySend(fx.tenant, { message });
      }
      const body = await listOk({ limit: 10, search: 'ПрИвЕт' });
      expect(messages(body)).to.deep.equal(['ПРИВЕТ всем', 'привет мир']);
      expect(body.pagination.total_records).to.equal(2);
    });

    it('then total_records counts every match while sms_list holds one page of them', async () => {
      await sendMany(15, fx.tenant, (i) => `match ${i + 1}`);
      await sendMany(5, fx.tenant, (i) => `other ${i + 1}`);
      const first = await listOk({ limit: 10, search: 'match' });
      expect(messages(first)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `match ${15 - i}`));
      expect(first.pagination).to.deep.equal({ total_records: 15, limit: 10, offset: 1 });
      const second = await listOk({ limit: 10, offset: 2, search: 'match' });
      expect(messages(second)).to.deep.equal(['match 5', 'match 4', 'match 3', 'match 2', 'match 1']);
      expect(second.pagination).to.deep.equal({ total_records: 15, limit: 10, offset: 2 });
      expect(await listOk({ limit: 10, offset: 3, search: 'match' })).to.deep.equal({
        pagination: { total_records: 15, limit: 10, offset: 3 },
        sms_list: [],
      });
    });
  });

  describe('when searching the phone number', () => {
    it('then digits of the number find the SMS sent to it, and only those', async () => {
      await nextMillisecond();
      const first = await legacySend(fx.tenant, { message: 'to first', phone_number: PHONE });
      await nextMillisecond();
      const second = await legacySend(fx.tenant, { message: 'to second', phone_number: OTHER_PHONE });

      expect(ids(await listOk({ limit: 10, search: '9161234567' }))).to.deep.equal([first]);
      expect(ids(await listOk({ limit: 10, search: '1234' }))).to.deep.equal([first]);
      expect(ids(await listOk({ limit: 10, search: '903111' }))).to.deep.equal([second]);
      expect(ids(await listOk({ limit: 10, search: '+7903' }))).to.deep.equal([second]);
      const both = await listOk({ limit: 10, search: '+79' });
      expect(ids(both)).to.deep.equal([second, first]);
      expect(both.pagination.total_records).to.equal(2);
    });
  });

  describe('when searching message_status', () => {
    const statuses: SmsStatus[] = ['pending', 'processing', 'sent', 'failed_send', 'delivered', 'undelivered', 'failed_delivery'];
    let objectIds: Record<string, string>;
    let phone: { mqtt: Awaited<ReturnType<RawClients['device']>>; uuid: string; objectId: string };

    beforeEach(async () => {
      const { device, token } = await fx.registerDevice();
      const mqtt = await fx.clients.device(device.id, token);
      const row = await deviceRow(fx.gateway, fx.tenant, device.id);
      phone = { mqtt, uuid: device.id, objectId: row.object_id };
      objectIds = {};
      // Messages that hold no status label, so only message_status can match.
      for (const [i, status] of statuses.entries()) {
        await nextMillisecond();
        objectIds[status] = await legacySend(fx.tenant, { message: `m${i}`, device_id: row.object_id });
        await driveTo(mqtt, device.id, await uuidOfMessage(fx.tenant, `m${i}`), status);
      }
    });

    const found = async (search: string) => {
      const body = await listOk({ limit: 100, search });
      expect(body.pagination.total_records, 'total_records counts the matches').to.equal(body.sms_list.length);
      return body.sms_list.map((sms: { id: string; status: number }) => sms.status).sort();
    };

    it('then "deliver" finds the delivered (4) and undelivered (5) ones', async () => {
      expect(await found('deliver')).to.deep.equal([4, 5, 5]);
      const body = await listOk({ limit: 100, search: 'deliver' });
      expect(ids(body)).to.deep.equal([objectIds.failed_delivery, objectIds.undelivered, objectIds.delivered]);
    });

    it('then "waiting" finds status 0 alone, whatever its case', async () => {
      for (const search of ['waiting', 'WAITING', 'wAiT']) {
        const body = await listOk({ limit: 100, search });
        expect(ids(body)).to.deep.equal([objectIds.pending]);
        expect(body.sms_list[0]).to.deep.include({ status: 0, message_status: 'waiting' });
        expect(body.pagination.total_records).to.equal(1);
      }
    });

    for (const [search, expected] of [
      ['processing', [1]],
      ['sent', [2]],
      ['failed', [3]],
      ['delivered', [4, 5, 5]],
      ['undelivered', [5, 5]],
      ['UNDELIVERED', [5, 5]],
    ] as const) {
      it(`then "${search}" finds statuses ${expected.join(', ')}`, async () => {
        expect(await found(search)).to.deep.equal(expected);
      });
    }

    it('then an SMS whose message holds the word matches too, and one that matches both ways counts once', async () => {
      await nextMillisecond();
      const delivered = await legacySend(fx.tenant, { message: 'was waiting, now delivered', device_id: phone.objectId });
      await driveTo(phone.mqtt, phone.uuid, await uuidOfMessage(fx.tenant, 'was waiting, now delivered'), 'delivered');
      await nextMillisecond();
      const pending = await legacySend(fx.tenant, { message: 'still waiting', device_id: phone.objectId });
      const body = await listOk({ limit: 100, search: 'waiting' });
      expect(ids(body)).to.deep.equal([pending, delivered, objectIds.pending]);
      expect(body.sms_list.map((sms: { status: number }) => sms.status)).to.deep.equal([0, 4, 0]);
      expect(body.pagination.total_records).to.equal(3);
    });
  });

  describe('when the search holds %, _ or \\', () => {
    const corpus = ['100% sure', '1000 apples', '100 apples', 'a_b', 'axb', 'aab', 'back\\slash', 'plain text'];
    beforeEach(async () => {
      for (const message of corpus) {
        await nextMillisecond();
        await legacySend(fx.tenant, { message });
      }
    });

    for (const [search, expected] of [
      ['100%', ['100% sure']],
      ['%', ['100% sure']],
      ['0%', ['100% sure']],
      ['a_b', ['a_b']],
      ['_', ['a_b']],
      ['\\', ['back\\slash']],
      ['k\\s', ['back\\slash']],
      ['%_\\', []],
      ['100', ['100 apples', '1000 apples', '100% sure']],
    ] as const) {
      it(`then ${JSON.stringify(search)} matches literally: ${JSON.stringify(expected)}`, async () => {
        const body = await listOk({ limit: 100, search });
        expect(messages(body)).to.deep.equal(expected);
        expect(body.pagination.total_records).to.equal(expected.length);
      });
    }

    it('then quotes and SQL are plain text too', async () => {
      await nextMillisecond();
      const quoted = await legacySend(fx.tenant, { message: `it's "quoted"; drop table sms; --` });
      expect(ids(await listOk({ limit: 100, search: `'s "quoted"; drop` }))).to.deep.equal([quoted]);
      expect(ids(await listOk({ limit: 100, search: `' or '1'='1` }))).to.deep.equal([]);
      expect((await listOk({ limit: 100 })).pagination.total_records).to.equal(corpus.length + 1);
    });
  });

  describe('when the search holds the NUL character', () => {
    it('then it is a 400 naming search, not a 500', async () => {
      await legacySend(fx.tenant);
      const reply = await list({ limit: 10, search: 'a\u0000b' });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.include('search');
    });
  });

  describe('when the search is too long', () => {
    it('then 201 characters are a 400 naming search, and 200 are searched', async () => {
      await legacySend(fx.tenant, { message: 'a'.repeat(170) });
      const tooLong = await list({ limit: 10, search: 'a'.repeat(201) });
      expectError(tooLong, 400, 'validation_failed');
      expect(detailFields(tooLong)).to.include('search');
      const longest = await listOk({ limit: 10, search: 'a'.repeat(200) });
      expect(longest.pagination.total_records).to.equal(0);
      expect((await listOk({ limit: 10, search: 'a'.repeat(170) })).pagination.total_records).to.equal(1);
    });
  });

  // Legacy clients add parameters of their own (unknown-query-parameters.test.ts).
  describe('when the query string has a parameter the endpoint does not know', () => {
    for (const name of ['page', 'status', 'sort', 'Limit']) {
      it(`then "${name}" is ignored: the answer is the one without it`, async () => {
        await sendMany(2);
        const plain = await listOk({ limit: 10 });
        expect(await listOk({ limit: 10, [name]: '1' })).to.deep.equal(plain);
      });
    }
  });

  describe('when the caller may not read SMS', () => {
    it('then a key without sms:read is a 403 forbidden', async () => {
      const client = await legacyKeyWith(fx.gateway, fx.tenant, allBut('sms:read'));
      const reply = await list({ limit: 10 }, client);
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('sms:read');
    });

    it('then a key with only sms:read lists', async () => {
      const sent = await sendMany(2);
      const client = await legacyKeyWith(fx.gateway, fx.tenant, ['sms:read']);
      expect(ids(await listOk({ limit: 10 }, client))).to.deep.equal([...sent].reverse());
    });

    it('then no key is a 401 unauthorized', async () => {
      expectError(await list({ limit: 10 }, new ApiClient(fx.tenant.root.baseUrl, undefined)), 401, 'unauthorized');
    });
  });
});
