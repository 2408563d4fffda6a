// Reading SMS in the Extended API: GET /sms/{id}, GET /sms (paged, filter by status, device and
// time range, newest first), with the statuses it shows (processing as pending), the SMS
// object, the page size (1 to 100, 50 by default), the sms:read permission and tenancy.
import { expect } from 'chai';
import type { SmsStatus } from '../../src/modules/messages/status.ts';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { detailFields, expectError, expectSms, MALFORMED_IDS, UNKNOWN_ID } from '../support/expectations.ts';
import { updateSms } from '../support/test-data.ts';

const PHONE = '+79161234567';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const minutes = (n: number) => new Date(T0 + n * 60_000);

describe('GET /api/ext/v1/sms/{id} and GET /api/ext/v1/sms', () => {
  const fx = useGateway();


  /** Creates an SMS through the API and returns its body. */
  async function send(owner: Tenant = fx.tenant, extra: Record<string, unknown> = {}): Promise<any> {
    const reply = await owner.api.post('/sms', { phone: PHONE, message: 'hello', ...extra });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body;
  }

  /** Test setup only: moves an SMS in time or to another status, as a device report would. */
  async function setRow(id: string, values: { created_at?: Date; status?: SmsStatus }): Promise<void> {
    const updated = await updateSms(fx, id, values);
    expect(updated).to.equal(1);
  }

  /** Every id of every page, walking next_cursor from the first page. */
  async function walk(query: string, owner: Tenant = fx.tenant): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams(query);
      if (cursor) params.set('cursor', cursor);
      const reply = await owner.api.get(`/sms?${params}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      ids.push(...reply.body.data.map((sms: { id: string }) => sms.id));
      cursor = reply.body.next_cursor;
      expect(++pages, 'the walk ends').to.be.below(100);
    } while (cursor !== null);
    return { ids, pages };
  }

  async function list(query: Record<string, string>, owner: Tenant = fx.tenant) {
    return owner.api.get(`/sms?${new URLSearchParams(query)}`);
  }

  describe('GET /sms/{id}', () => {
    describe('when the SMS belongs to the account', () => {
      it('then it answers 200 with the SMS object, how it came in and its status history', async () => {
        const created = await send();
        const reply = await fx.tenant.api.get(`/sms/${created.id}`);
        expect(reply.status).to.equal(200);
        expectSms(reply.body, ['way_in', 'history']);
        const { history, way_in: wayIn, ...sms } = reply.body;
        expect(sms).to.deep.equal(created);
        // Sent with a key; from the panel (a user's session) it says 'panel'.
        expect(wayIn).to.equal('api');
        expect(history).to.have.length(1);
        expect(history[0]).to.have.all.keys('status', 'internal_status', 'source', 'reason', 'at');
        expect(history[0]).to.include({ status: 'pending', internal_status: 'pending', source: 'api', reason: null });
        expect(history[0].at).to.equal(created.sent_at);
      });

      it('then a task the device has taken (processing) still shows as pending', async () => {
        const created = await send();
        await setRow(created.id, { status: 'processing' });
        const reply = await fx.tenant.api.get(`/sms/${created.id}`);
        expect(reply.status).to.equal(200);
        expect(reply.body.status).to.equal('pending');
      });

      it('then each status other than processing is shown as it is', async () => {
        const created = await send();
        for (const status of ['sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'] as const) {
          await setRow(created.id, { status });
          const reply = await fx.tenant.api.get(`/sms/${created.id}`);
          expect(reply.body.status).to.equal(status);
        }
      });
    });

    describe('when the SMS does not exist', () => {
      it('then it answers 404 sms_not_found', async () => {
        expectError(await fx.tenant.api.get(`/sms/${UNKNOWN_ID}`), 404, 'sms_not_found');
      });
    });

    describe("when the SMS is another account's", () => {
      it('then it answers 404 sms_not_found, the same as for an unknown SMS', async () => {
        const other = await fx.newTenant();
        const theirs = await send(other);
        expectError(await fx.tenant.api.get(`/sms/${theirs.id}`), 404, 'sms_not_found');
        expect((await other.api.get(`/sms/${theirs.id}`)).status).to.equal(200);
      });
    });

    describe('when the id is not a UUID', () => {
      for (const id of MALFORMED_IDS) {
        it(`then "${id}" is a 400 invalid_id naming id`, async () => {
          const reply = await fx.tenant.api.get(`/sms/${encodeURIComponent(id)}`);
          expectError(reply, 400, 'invalid_id');
          expect(detailFields(reply)).to.include('id');
        });
      }
    });

    describe('when the key lacks sms:read', () => {
      it('then it answers 403 forbidden, even for its own SMS', async () => {
        const created = await send();
        const sender = await fx.keyWith(['sms:send', 'devices:read', 'devices:settings', 'devices:write']);
        expectError(await sender.get(`/sms/${created.id}`), 403, 'forbidden');
      });
    });
  });

  describe('GET /sms', () => {
    describe('when the account has SMS', () => {
      it('then it answers a page {data, next_cursor} of SMS objects, newest first', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) ids.push((await send(fx.tenant, { message: `m${i}` })).id);
        // Created in order 0..3, but stamped so that 2 is the newest and 1 the oldest.
        await setRow(ids[0]!, { created_at: minutes(1) });
        await setRow(ids[1]!, { created_at: minutes(0) });
        await setRow(ids[2]!, { created_at: minutes(3) });
        await setRow(ids[3]!, { created_at: minutes(2) });
        const reply = await fx.tenant.api.get('/sms');
        expect(reply.status).to.equal(200);
        expect(reply.body).to.have.all.keys('data', 'next_cursor');
        expect(reply.body.next_cursor).to.equal(null);
        for (const sms of reply.body.data) expectSms(sms);
        expect(reply.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([ids[2], ids[3], ids[0], ids[1]]);
        expect(reply.body.data[0].sent_at).to.equal(minutes(3).toISOString());
      });

      it('then an account without SMS gets an empty last page', async () => {
        const reply = await fx.tenant.api.get('/sms');
        expect(reply.status).to.equal(200);
        expect(reply.body).to.deep.equal({ data: [], next_cursor: null });
      });
    });

    describe('when limit is given or not (page size 1 to 100)', () => {
      it('then without limit a page holds 50 SMS, and the rest is on the next page', async () => {
        for (let i = 0; i < 51; i++) await fx.gateway.services.messages.create(fx.tenant.accountId, { phone: PHONE, message: `m${i}` });
        const first = await fx.tenant.api.get('/sms');
        expect(first.status).to.equal(200);
        expect(first.body.data).to.have.length(50);
        expect(first.body.next_cursor).to.be.a('string').and.not.empty;
        const second = await fx.tenant.api.get(`/sms?cursor=${encodeURIComponent(first.body.next_cursor)}`);
        expect(second.body.data).to.have.length(1);
        expect(second.body.next_cursor).to.equal(null);
      });

      it('then limit 1 answers one SMS and a cursor to the next', async () => {
        await send();
        await send();
        const reply = await fx.tenant.api.get('/sms?limit=1');
        expect(reply.status).to.equal(200);
        expect(reply.body.data).to.have.length(1);
        expect(reply.body.next_cursor).to.be.a('string').and.not.empty;
      });

      it('then limit 100 is accepted', async () => {
        await send();
        const reply = await fx.tenant.api.get('/sms?limit=100');
        expect(reply.status).to.equal(200);
        expect(reply.body.data).to.have.length(1);
      });

      for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
        it(`then limit "${limit}" is a 400 naming limit`, async () => {
          const reply = await fx.tenant.api.get(`/sms?limit=${limit}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('limit');
        });
      }
    });

    describe('when next_cursor is followed', () => {
      it('then the pages together hold every SMS once, in order, even when several share a timestamp', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 7; i++) ids.push((await send(fx.tenant, { message: `m${i}` })).id);
        const stamps = [0, 0, 0, 1, 1, 2, 3];
        for (const [i, id] of ids.entries()) await setRow(id, { created_at: minutes(stamps[i]!) });
        // Newest first; among equal timestamps, the order the cursor uses (id, descending).
        const expected = ids
          .map((id, i) => ({ id, at: stamps[i]! }))
          .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
          .map((row) => row.id);
        for (const limit of [1, 2, 3, 7, 100]) {
          const { ids: seen, pages } = await walk(`limit=${limit}`);
          expect(seen, `limit ${limit}`).to.deep.equal(expected);
          expect(pages, `limit ${limit}`).to.equal(Math.max(1, Math.ceil(7 / limit)));
        }
      });

      it('then an SMS created between two pages does not shift the next page', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) ids.push((await send(fx.tenant, { message: `m${i}` })).id);
        for (const [i, id] of ids.entries()) await setRow(id, { created_at: minutes(i) });
        const first = await fx.tenant.api.get('/sms?limit=2');
        expect(first.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([ids[3], ids[2]]);
        await send(fx.tenant, { message: 'late' });
        const second = await fx.tenant.api.get(`/sms?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
        expect(second.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([ids[1], ids[0]]);
        expect(second.body.next_cursor).to.equal(null);
      });

      it('then filters and the cursor combine over a walk', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push((await send(fx.tenant, { message: `m${i}` })).id);
        for (const [i, id] of ids.entries()) await setRow(id, { created_at: minutes(i), status: i % 2 ? 'sent' : 'pending' });
        const { ids: seen } = await walk('status=sent&limit=1');
        expect(seen).to.deep.equal([ids[5], ids[3], ids[1]]);
      });
    });

    describe('when the cursor is not one this API returned', () => {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const cases: [string, string][] = [
        ['plain text', 'garbage'],
        ['not base64', '!!!***'],
        ['base64 of null', encode(null)],
        ['base64 of an empty array', encode([])],
        ['base64 of an object', encode({ created_at: '2026-03-01T10:00:00.000Z' })],
        ['a bad date', encode(['not a date', UNKNOWN_ID])],
        ['an id that is 36 dashes', encode(['2026-03-01T10:00:00.000Z', '-'.repeat(36)])],
        ['an id that is not a UUID', encode(['2026-03-01T10:00:00.000Z', '0123456789abcdef0123456789abcdef0123'])],
        ['over 200 characters', 'a'.repeat(201)],
      ];
      for (const [name, cursor] of cases) {
        it(`then ${name} is a 400 naming cursor`, async () => {
          await send();
          const reply = await fx.tenant.api.get(`/sms?cursor=${encodeURIComponent(cursor)}`);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include('cursor');
        });
      }

      for (const date of ['-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z']) {
        it(`then a cursor dated ${date} is answered 200 or 400, never 500`, async () => {
          await send();
          const reply = await fx.tenant.api.get(`/sms?cursor=${encode([date, UNKNOWN_ID])}`);
          if (reply.status === 200) expect(reply.body).to.have.all.keys('data', 'next_cursor');
          else expectError(reply, 400, 'validation_failed');
        });
      }
    });

    describe('when filtered by status', () => {
      it('then only SMS in that status are listed; pending includes processing', async () => {
        const statuses: SmsStatus[] = ['pending', 'processing', 'sent', 'delivered', 'failed_send', 'sent'];
        const ids: string[] = [];
        for (const [i, status] of statuses.entries()) {
          const { id } = await send(fx.tenant, { message: `m${i}` });
          await setRow(id, { status, created_at: minutes(i) });
          ids.push(id);
        }
        const ofStatus = async (status: string) => (await list({ status })).body.data.map((sms: { id: string }) => sms.id);
        expect(await ofStatus('sent')).to.deep.equal([ids[5], ids[2]]);
        expect(await ofStatus('pending')).to.deep.equal([ids[1], ids[0]]);
        expect(await ofStatus('delivered')).to.deep.equal([ids[3]]);
        expect(await ofStatus('failed_send')).to.deep.equal([ids[4]]);
        expect(await ofStatus('undelivered')).to.deep.equal([]);
        expect(await ofStatus('failed_delivery')).to.deep.equal([]);
        for (const sms of (await list({ status: 'pending' })).body.data) expect(sms.status).to.equal('pending');
      });
    });

    describe('when filtered by device_id', () => {
      it("then only that device's SMS are listed", async () => {
        const a = (await fx.registerDevice('a')).device;
        const b = (await fx.registerDevice('b')).device;
        const onA = [(await send(fx.tenant, { device_id: a.id })).id, (await send(fx.tenant, { device_id: a.id })).id];
        const onB = (await send(fx.tenant, { device_id: b.id })).id;
        await send(); // no device online: unassigned
        await setRow(onA[0]!, { created_at: minutes(0) });
        await setRow(onA[1]!, { created_at: minutes(1) });
        const reply = await list({ device_id: a.id });
        expect(reply.status).to.equal(200);
        expect(reply.body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([onA[1], onA[0]]);
        expect((await list({ device_id: b.id })).body.data.map((sms: { id: string }) => sms.id)).to.deep.equal([onB]);
      });

      it('then a device of the account without SMS gives an empty list', async () => {
        const { device } = await fx.registerDevice();
        await send();
        const reply = await list({ device_id: device.id });
        expect(reply.status).to.equal(200);
        expect(reply.body.data).to.deep.equal([]);
      });
    });

    describe('when filtered by time range', () => {
      let ids: string[];
      beforeEach(async () => {
        ids = [];
        for (let i = 0; i < 4; i++) {
          const { id } = await send(fx.tenant, { message: `m${i}` });
          await setRow(id, { created_at: minutes(i) });
          ids.push(id);
        }
      });
      const idsOf = (reply: { body: { data: { id: string }[] } }) => reply.body.data.map((sms) => sms.id);

      it('then from is inclusive', async () => {
        expect(idsOf(await list({ from: minutes(1).toISOString() }))).to.deep.equal([ids[3], ids[2], ids[1]]);
      });

      it('then to is exclusive', async () => {
        expect(idsOf(await list({ to: minutes(2).toISOString() }))).to.deep.equal([ids[1], ids[0]]);
      });

      it('then from and to together select [from, to)', async () => {
        expect(idsOf(await list({ from: minutes(1).toISOString(), to: minutes(3).toISOString() }))).to.deep.equal([ids[2], ids[1]]);
        expect(idsOf(await list({ from: minutes(1).toISOString(), to: minutes(1).toISOString() }))).to.deep.equal([]);
      });

      it('then a time with a zone offset means the same instant', async () => {
        // 13:01+03:00 is 10:01Z, the creation time of the second SMS.
        expect(idsOf(await list({ from: '2026-03-01T13:01:00+03:00' }))).to.deep.equal([ids[3], ids[2], ids[1]]);
        expect(idsOf(await list({ to: '2026-03-01T13:01:00.000+03:00' }))).to.deep.equal([ids[0]]);
      });

      it('then time, status and device filters combine', async () => {
        await setRow(ids[2]!, { status: 'sent' });
        await setRow(ids[0]!, { status: 'sent' });
        expect(idsOf(await list({ status: 'sent', from: minutes(1).toISOString() }))).to.deep.equal([ids[2]]);
      });
    });

    describe('when a filter value is invalid', () => {
      const cases: [string, Record<string, string>, string][] = [
        ['an unknown status', { status: 'lost' }, 'status'],
        ['the internal status processing', { status: 'processing' }, 'status'],
        ['a numeric (legacy) status', { status: '4' }, 'status'],
        ['an empty status', { status: '' }, 'status'],
        ['a device_id that is not a UUID', { device_id: 'phone-1' }, 'device_id'],
        ['a device_id that is a UUID URN', { device_id: `urn:uuid:${UNKNOWN_ID}` }, 'device_id'],
        ['from that is not a date', { from: 'yesterday' }, 'from'],
        ['from that is only a date', { from: '2026-03-01' }, 'from'],
        ['to without a time zone', { to: '2026-03-01T10:00:00' }, 'to'],
        ['to on a day that does not exist', { to: '2026-02-30T10:00:00Z' }, 'to'],
      ];
      for (const [name, query, field] of cases) {
        it(`then ${name} is a 400 naming ${field}`, async () => {
          const reply = await list(query);
          expectError(reply, 400, 'validation_failed');
          expect(detailFields(reply)).to.include(field);
        });
      }

      it('then an unknown parameter is ignored, as on every GET (a cache-buster, say)', async () => {
        expect((await list({ sort: 'asc' })).status).to.equal(200);
      });

      it('then a repeated status parameter is a 400 naming status', async () => {
        const reply = await fx.tenant.api.get('/sms?status=sent&status=delivered');
        expectError(reply, 400, 'validation_failed');
        expect(detailFields(reply)).to.include('status');
      });

      for (const [name, query] of [
        ['a leap second', { from: '2026-12-31T23:59:60Z' }],
        ['year 0000', { from: '0000-01-01T00:00:00Z' }],
      ] as [string, Record<string, string>][]) {
        it(`then a date-time at ${name} is answered 200 or 400, never 500`, async () => {
          await send();
          const reply = await list(query);
          if (reply.status === 200) expect(reply.body).to.have.all.keys('data', 'next_cursor');
          else expectError(reply, 400, 'validation_failed');
        });
      }
    });

    describe('when another account has SMS', () => {
      it("then the list never shows them, whatever the filter", async () => {
        const other = await fx.newTenant();
        const theirDevice = (await registerDevice(fx.gateway, other)).device;
        const theirs = new Set<string>();
        for (let i = 0; i < 3; i++) theirs.add((await send(other)).id);
        theirs.add((await send(other, { device_id: theirDevice.id })).id);
        const mine = [(await send()).id, (await send()).id];

        const { ids } = await walk('limit=1');
        expect(ids).to.have.members(mine);
        const byTheirDevice = await list({ device_id: theirDevice.id });
        expect(byTheirDevice.status).to.equal(200);
        expect(byTheirDevice.body.data).to.deep.equal([]);
        const pending = await list({ status: 'pending', from: '2000-01-01T00:00:00Z' });
        expect(pending.body.data.map((sms: { id: string }) => sms.id)).to.have.members(mine);
        expect((await walk('limit=100', other)).ids).to.have.members([...theirs]);
      });

      it("then their cursor does not open their SMS to this account", async () => {
        const other = await fx.newTenant();
        for (let i = 0; i < 3; i++) await send(other);
        const theirPage = await other.api.get('/sms?limit=1');
        const reply = await fx.tenant.api.get(`/sms?cursor=${encodeURIComponent(theirPage.body.next_cursor)}`);
        expect(reply.status).to.equal(200);
        expect(reply.body.data).to.deep.equal([]);
      });
    });

    describe('when the key lacks sms:read', () => {
      it('then it answers 403 forbidden', async () => {
        await send();
        const sender = await fx.keyWith(['sms:send', 'devices:read', 'devices:settings', 'devices:write']);
        expectError(await sender.get('/sms'), 403, 'forbidden');
      });
    });
  });
});
