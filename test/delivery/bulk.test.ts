// POST /api/ext/v1/sms/bulk: up to 1,000 SMS in one call, as JSON {"messages": [...]} or as
// text/csv with a header row. Every message is checked first; one bad message refuses the whole
// call with a detail for every bad row (messages.{index}...) and nothing is created. Otherwise
// all are created in one transaction and answered in the order given.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply } from '../support/tenant.ts';
import { expectError, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { connectSimulated, deliveries, simulatedFor } from '../support/legacy.ts';

const PHONE = '+79161234567';
const BULK = '/sms/bulk';
/** Pacing that lets one phone take a whole small batch at once. */
const UNPACED = { send_window: 50, limits: { per_minute: null, per_hour: null, per_day: null } };

describe('POST /api/ext/v1/sms/bulk', () => {
  const fx = useGateway();

  function messages(count: number, extra: (index: number) => Record<string, unknown> = () => ({})): Record<string, unknown>[] {
    return Array.from({ length: count }, (_, index) => ({ phone: PHONE, message: `bulk ${index}`, ...extra(index) }));
  }

  function postCsv(csv: string, client = fx.tenant.api): Promise<Reply> {
    return client.request('POST', BULK, csv, { 'content-type': 'text/csv' });
  }

  /** The tenant's stored SMS, all pages. */
  async function storedSms(): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const reply: Reply = await fx.tenant.api.get(`/sms?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      all.push(...reply.body.data);
      cursor = reply.body.next_cursor;
    } while (cursor);
    return all;
  }

  async function expectNothingCreated(): Promise<void> {
    expect(await storedSms(), 'no SMS was created').to.have.length(0);
  }

  function fields(reply: Reply): string[] {
    return (reply.body.error.details ?? []).map((detail: { field: string }) => detail.field);
  }

  /** The row indexes the details name (messages.{index}...). */
  function rowsNamed(reply: Reply): number[] {
    const rows = new Set<number>();
    for (const field of fields(reply)) {
      const match = /^messages\.(\d+)(?:\.|$)/.exec(field);
      if (match) rows.add(Number(match[1]));
    }
    return [...rows].sort((a, b) => a - b);
  }

  describe('when three valid messages are sent as JSON', () => {
    it('then it answers 201 with the three SMS, pending, in the order given', async () => {
      const reply = await fx.tenant.api.post(BULK, {
        messages: [
          { phone: PHONE, message: 'first' },
          { phone: '+7 916 765-43-21', message: 'second', priority: 5 },
          { phone: PHONE, message: 'third', ttl: 3600 },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(Object.keys(reply.body)).to.deep.equal(['data']);
      expect(reply.body.data.map((sms: { message: string }) => sms.message)).to.deep.equal(['first', 'second', 'third']);
      expect(reply.body.data.map((sms: { phone: string }) => sms.phone)).to.deep.equal([PHONE, '+79167654321', PHONE]);
      for (const sms of reply.body.data) {
        expect(sms.id).to.match(UUID);
        expect(sms).to.include({ status: 'pending', device_id: null });
      }
      expect(reply.body.data[1].priority).to.equal(5);
      expect(reply.body.data[2].valid_until).to.be.a('string');
      expect(new Set(reply.body.data.map((sms: { id: string }) => sms.id)).size).to.equal(3);
    });

    it('then each of them is stored and readable by its id', async () => {
      const reply = await fx.tenant.api.post(BULK, { messages: messages(3) });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      for (const created of reply.body.data) {
        const read = await fx.tenant.api.get(`/sms/${created.id}`);
        expect(read.status).to.equal(200);
        expect(read.body).to.include({ id: created.id, message: created.message, status: 'pending' });
      }
      expect(await storedSms()).to.have.length(3);
    });
  });

  describe('when 1,000 messages are sent and the one at index 537 has an invalid phone', () => {
    it('then it answers 400 naming row 537 only, and nothing is created', async () => {
      const batch = messages(1000, (index) => (index === 537 ? { phone: 'not a phone' } : {}));
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(fields(reply)).to.include('messages.537.phone');
      expect(rowsNamed(reply)).to.deep.equal([537]);
      await expectNothingCreated();
    });
  });

  describe('when all 1,000 messages are valid', () => {
    it('then all 1,000 are created, in the order given', async () => {
      const reply = await fx.tenant.api.post(BULK, { messages: messages(1000) });
      expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).to.equal(201);
      expect(reply.body.data).to.have.length(1000);
      expect(reply.body.data.map((sms: { message: string }) => sms.message)).to.deep.equal(messages(1000).map((m) => m.message));
      expect(await storedSms()).to.have.length(1000);
    });
  });

  describe('when several rows are bad in different ways', () => {
    it('then a too-long message (schema) and an unknown device_id (lookup) are both listed, and nothing is created', async () => {
      const batch = messages(5, (index) => {
        if (index === 1) return { message: 'x'.repeat(171) };
        if (index === 3) return { device_id: UNKNOWN_ID };
        return {};
      });
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(rowsNamed(reply), JSON.stringify(reply.body)).to.deep.equal([1, 3]);
      expect(fields(reply)).to.include('messages.1.message');
      await expectNothingCreated();
    });

    it('then an invalid phone and an unknown device_id (both found by lookups) are both listed, and nothing is created', async () => {
      const batch = messages(5, (index) => {
        if (index === 0) return { phone: '12' };
        if (index === 4) return { device_id: UNKNOWN_ID };
        return {};
      });
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(rowsNamed(reply), JSON.stringify(reply.body)).to.deep.equal([0, 4]);
      expect(fields(reply)).to.include('messages.0.phone');
      await expectNothingCreated();
    });

    it('then the detail of an unknown device_id names the row and the field (messages.{index}.device_id)', async () => {
      const batch = messages(3, (index) => (index === 2 ? { device_id: UNKNOWN_ID } : {}));
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(fields(reply)).to.deep.equal(['messages.2.device_id']);
      await expectNothingCreated();
    });

    it('then two schema errors in different rows (a missing phone, an unknown field) are both listed', async () => {
      const batch = messages(4, (index) => (index === 2 ? { colour: 'red' } : {}));
      delete batch[0]!.phone;
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(fields(reply)).to.include.members(['messages.0.phone', 'messages.2.colour']);
      await expectNothingCreated();
    });

    it('then a device of the account that may not send fails only its own row', async () => {
      const { device } = await fx.registerDevice('no-send phone');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { can_send_sms: false });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const batch = messages(3, (index) => (index === 2 ? { device_id: device.id } : {}));
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(rowsNamed(reply)).to.deep.equal([2]);
      await expectNothingCreated();
    });
  });

  describe('when the list is too long or empty', () => {
    it('then 1,001 messages are refused with 400 and nothing is created', async () => {
      const reply = await fx.tenant.api.post(BULK, { messages: messages(1001) });
      expectError(reply, 400, 'validation_failed');
      await expectNothingCreated();
    });

    it('then an empty list is refused with 400', async () => {
      const reply = await fx.tenant.api.post(BULK, { messages: [] });
      expectError(reply, 400, 'validation_failed');
      await expectNothingCreated();
    });

    it('then a body without messages is refused with 400', async () => {
      const reply = await fx.tenant.api.post(BULK, {});
      expectError(reply, 400, 'validation_failed');
      expect(fields(reply)).to.include('messages');
    });
  });

  describe('when a message asks for no_store', () => {
    it('then the call is refused with 400 naming that row, and nothing is created', async () => {
      const batch = messages(3, (index) => (index === 1 ? { no_store: true } : {}));
      const reply = await fx.tenant.api.post(BULK, { messages: batch });
      expectError(reply, 400);
      expect(rowsNamed(reply)).to.deep.equal([1]);
      expect(fields(reply)).to.include('messages.1.no_store');
      await expectNothingCreated();
    });
  });

  describe('when the body is CSV', () => {
    it('then valid rows are created in order, a quoted cell keeping its comma and its line break', async () => {
      const csv = ['phone,message,priority', `${PHONE},plain,`, `${PHONE},"Hello, world`, `second line",7`, `+79167654321,"say ""hi""",`].join('\r\n');
      const reply = await postCsv(csv + '\r\n');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.data.map((sms: { message: string }) => sms.message)).to.deep.equal(['plain', 'Hello, world\r\nsecond line', 'say "hi"']);
      expect(reply.body.data.map((sms: { priority: number }) => sms.priority)).to.deep.equal([0, 7, 0]);
      expect(reply.body.data[2].phone).to.equal('+79167654321');
      expect(await storedSms()).to.have.length(3);
    });

    it('then the optional columns are read (device_id, send_at, ttl), in any order and case', async () => {
      const { device } = await fx.registerDevice('csv phone');
      const sendAt = new Date(Date.now() + 3_600_000).toISOString();
      const csv = `Message,TTL,Phone,device_id,send_at\nhello,7200,${PHONE},${device.id},${sendAt}\n`;
      const reply = await postCsv(csv);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body.data[0]).to.include({ message: 'hello', phone: PHONE, device_id: device.id, send_at: sendAt });
      expect(reply.body.data[0].valid_until).to.be.a('string');
    });

    it('then a bad row is refused with 400 naming its index and column, and nothing is created', async () => {
      const csv = `phone,message\n${PHONE},fine\nnot a phone,bad\n${PHONE},fine too\n`;
      const reply = await postCsv(csv);
      expectError(reply, 400);
      expect(rowsNamed(reply)).to.deep.equal([1]);
      expect(fields(reply)).to.include('messages.1.phone');
      await expectNothingCreated();
    });

    it('then a bad cell of a number column is refused with 400 naming its row', async () => {
      const csv = `phone,message,priority\n${PHONE},a,1\n${PHONE},b,high\n`;
      const reply = await postCsv(csv);
      expectError(reply, 400);
      expect(fields(reply)).to.include('messages.1.priority');
      await expectNothingCreated();
    });

    it('then an unknown column is refused with 400, and nothing is created', async () => {
      const csv = `phone,message,colour\n${PHONE},hello,red\n`;
      const reply = await postCsv(csv);
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.contain('colour');
      await expectNothingCreated();
    });

    it('then a header without the message column is refused with 400', async () => {
      const reply = await postCsv(`phone\n${PHONE}\n`);
      expectError(reply, 400, 'validation_failed');
      await expectNothingCreated();
    });

    /** What an empty or header-only CSV is told it needs, in the message and its detail alike. */
    const WHAT_IT_NEEDS = 'it needs a header line naming its columns (phone and message, and any of device_id, sim_slot, callback_id, send_at, valid_until, ttl, priority, category) and at least one row below it, one SMS per row';

    it('then an empty body is refused with 400 saying what a CSV must hold', async () => {
      const reply = await postCsv('');
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.equal(`the CSV is empty: ${WHAT_IT_NEEDS}`);
      expect(reply.body.error.details).to.deep.equal([{ field: 'header', in: 'body', message: `the CSV is empty: ${WHAT_IT_NEEDS}` }]);
      await expectNothingCreated();
    });

    it('then a header row without any SMS is refused with 400 saying a row is needed below the header', async () => {
      const reply = await postCsv('phone,message\n');
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.equal(`the CSV has a header line but no rows: ${WHAT_IT_NEEDS}`);
      expect(reply.body.error.details).to.deep.equal([{ field: 'messages', in: 'body', message: `the CSV has a header line but no rows: ${WHAT_IT_NEEDS}` }]);
      await expectNothingCreated();
    });

    it('then a row with more cells than the header is refused with 400', async () => {
      const reply = await postCsv(`phone,message\n${PHONE},hello,extra\n`);
      expectError(reply, 400);
      await expectNothingCreated();
    });

    it('then 1,001 rows are refused with 400', async () => {
      const rows = Array.from({ length: 1001 }, (_, i) => `${PHONE},row ${i}`);
      const reply = await postCsv(`phone,message\n${rows.join('\n')}\n`);
      expectError(reply, 400, 'validation_failed');
      await expectNothingCreated();
    });
  });

  describe('when the key lacks sms:send', () => {
    it('then it answers 403 and nothing is created', async () => {
      const reader = await fx.keyWith(['sms:read']);
      const reply = await reader.post(BULK, { messages: messages(2) });
      expectError(reply, 403, 'forbidden');
      await expectNothingCreated();
    });
  });

  describe('when a device of the account comes online', () => {
    it('then the SMS of a bulk send, pending until then, are all delivered by it', async () => {
      const { device, token } = await fx.registerDevice('bulk phone');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);

      const created = await fx.tenant.api.post(BULK, { messages: messages(5) });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const ids: string[] = created.body.data.map((sms: { id: string }) => sms.id);
      expect(created.body.data.every((sms: { status: string }) => sms.status === 'pending')).to.equal(true);

      const phone = simulatedFor(fx.gateway, device, token);
      fx.track(phone);
      const delivered = deliveries(phone, ids.length, 10_000);
      await phone.connect();
      expect(await delivered).to.have.members(ids);

      for (const id of ids) {
        const read = await fx.tenant.api.get(`/sms/${id}`);
        expect(read.body).to.include({ status: 'delivered', device_id: device.id });
      }
    });

    it('then a bulk send to an already online device is delivered by it', async () => {
      const { device, token } = await fx.registerDevice('online phone');
      const patched = await fx.tenant.api.patch(`/devices/${device.id}/settings`, UNPACED);
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const phone = await connectSimulated(fx.gateway, device, token);
      fx.track(phone);

      const delivered = deliveries(phone, 4, 10_000);
      const created = await fx.tenant.api.post(BULK, { messages: messages(4) });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(await delivered).to.have.members(created.body.data.map((sms: { id: string }) => sms.id));
    });
  });
});
