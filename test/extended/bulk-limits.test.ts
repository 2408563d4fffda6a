// POST /sms/bulk refuses hostile bodies at the first character past a limit no valid bulk comes
// near, with a 400 naming the row and column (a cell longer than any field, a header with far
// more columns than there are fields), and an account may have only two bulk sends under way at
// once (429 with Retry-After). That a hostile bulk does not hold another tenant up is what
// scripts/drills/bulk-starvation.ts measures; these tests check the answers.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';
import { eventually } from '../support/eventually.ts';
import type { Reply } from '../support/tenant.ts';
import { MAX_HEADER_COLUMNS, MAX_MESSAGE_CELL } from '../../src/api/extended/messages/bulk-csv.ts';
import { BULK_PER_ACCOUNT } from '../../src/api/extended/messages/bulk-gate.ts';
import { smsRowsOf } from '../support/test-data.ts';

const PHONE = '+79161234567';

describe('extended API: bulk send limits', () => {
  const fx = useGateway();
  const postCsv = (csv: string, path = '/sms/bulk') => fx.tenant.api.request('POST', path, csv, { 'content-type': 'text/csv' });
  const storedSms = () => smsRowsOf(fx, fx.tenant.accountId);
  const detailFields = (reply: Reply) => (reply.body.error.details ?? []).map((detail: { field: string }) => detail.field);

  describe('a CSV', () => {
    it('with a 1.9 MiB message cell is refused with 400 naming its row and column, with a short answer', async () => {
      const reply = await postCsv(`phone,message\n${PHONE},fine\n${PHONE},${'x'.repeat(1_990_000)}\n`);
      expectError(reply, 400, 'message_too_long');
      expect(detailFields(reply)).to.deep.equal(['messages.1.message']);
      expect(reply.body.error.message).to.contain('row 2').and.contain('column message').and.contain(String(MAX_MESSAGE_CELL));
      expect(JSON.stringify(reply.body).length).to.be.below(2000);
      expect(await storedSms()).to.have.length(0);
    });

    it('with a quoted cell longer than any field is refused the same way, for any column', async () => {
      const reply = await postCsv(`phone,message\n"${'7'.repeat(10_000)}",hello\n`);
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['messages.0.phone']);
      expect(reply.body.error.message).to.contain('column phone');
    });

    it('whose header has 100,000 columns is refused with 400 on the header, naming the known columns', async () => {
      const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',');
      const reply = await postCsv(`${header}\n${header}\n`);
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['header']);
      expect(reply.body.error.message).to.contain(`more than ${MAX_HEADER_COLUMNS} columns`).and.contain('phone, message');
      expect(JSON.stringify(reply.body).length).to.be.below(2000);
    });

    it('with a row of more cells than the header is refused naming that row', async () => {
      const reply = await postCsv(`phone,message\n${PHONE},a\n${PHONE},b,${'c,'.repeat(50_000)}\n`);
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['messages.1']);
      expect(reply.body.error.message).to.contain('row 2');
    });

    it('with a stray quote is refused naming the row and column', async () => {
      const reply = await postCsv(`phone,message\n${PHONE},say "hi"\n`);
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['messages.0.message']);
      expect(reply.body.error.message).to.contain('quote');
    });

    it('with an unclosed quote is refused; rows past 1,000 are refused at once', async () => {
      expectError(await postCsv(`phone,message\n${PHONE},"never closed\n`), 400, 'validation_failed');
      const rows = Array.from({ length: 5000 }, (_, i) => `${PHONE},row ${i}`);
      const reply = await postCsv(`phone,message\n${rows.join('\n')}\n`);
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.contain('at most 1000 messages');
    });

    it('that is valid still reads quoted cells, CRLF, a BOM and blank lines as before', async () => {
      const csv = `\uFEFFphone,message\r\n\r\n${PHONE},"a, ""quoted""\r\nline"\r\n${PHONE},plain`;
      const reply = await postCsv(csv, '/sms/bulk?dry_run=true');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      expect(reply.body.data.map((row: { message: string }) => row.message)).to.deep.equal(['a, "quoted"\r\nline', 'plain']);
    });
  });

  describe('a JSON body', () => {
    it('over 2 MiB is refused with 413 payload_too_large', async () => {
      const messages = Array.from({ length: 1000 }, () => ({ phone: PHONE, message: 'x'.repeat(2200) }));
      expectError(await fx.tenant.api.post('/sms/bulk', { messages }), 413, 'payload_too_large');
    });

    it('of 1,000 messages is checked whole: every bad one is named, by index', async () => {
      const messages = Array.from({ length: 1000 }, (_, i) => ({ phone: i % 100 === 99 ? 'nope' : PHONE, message: `m${i}` }));
      const reply = await fx.tenant.api.post('/sms/bulk', { messages });
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `messages.${i * 100 + 99}.phone`));
    });
  });

  describe('bulk sends under way at once', () => {
    const open: ClientRequest[] = [];
    afterEach(() => {
      for (const request of open.splice(0)) request.destroy();
    });

    /** A bulk send whose body never finishes arriving: it holds its place until it is cut off. */
    function stalledBulk(key: string): ClientRequest {
      const url = new URL(`${fx.tenant.api.baseUrl}/sms/bulk`);
      const request = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': '1000' } });
      request.on('error', () => {});
      request.write('{"messages":[');
      open.push(request);
      return request;
    }
    const smallBulk = (api = fx.tenant.api) => api.post('/sms/bulk?dry_run=true', { messages: [{ phone: PHONE, message: 'hi' }] });

    it(`past ${BULK_PER_ACCOUNT} of one account, a bulk is refused with 429 and Retry-After; other accounts are not; a place is freed when a bulk ends`, async () => {
      const stalled = Array.from({ length: BULK_PER_ACCOUNT }, () => stalledBulk(fx.tenant.key));
      // Once both stalled bulks hold their places, the next one is refused.
      const refused = await eventually('a bulk refused with 429', async () => {
        const reply = await smallBulk();
        return reply.status === 429 ? reply : undefined;
      });
      expectError(refused, 429, 'too_many_bulk_requests');
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
      expect(refused.body.error.message).to.contain(`at most ${BULK_PER_ACCOUNT} at once`);

      const other = await fx.newTenant();
      expect((await smallBulk(other.api)).status).to.equal(200);
      // A single send of the same account is not a bulk: it is not held back.
      expect((await fx.tenant.api.post('/sms', { phone: PHONE, message: 'single' })).status).to.equal(201);

      stalled[0]!.destroy();
      const again = await eventually('a bulk accepted once a place is free', async () => {
        const reply = await smallBulk();
        return reply.status === 200 ? reply : undefined;
      });
      expect(again.body.data).to.have.length(1);
    });
  });
});
