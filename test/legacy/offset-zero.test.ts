// GET /sms: offset is a page number counted from 1 ("default 1, meaning the first page"), and a
// client that counts from 0 asks for offset=0 first. 0 is taken as the first page as well, and is
// echoed as given; the pages after it are still counted from 1.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { legacySend, nextMillisecond } from '../support/legacy.ts';

describe('legacy API: GET /sms with offset 0', () => {
  const fx = useGateway({ tenant: 'once' });
  let newestFirst: string[];

  before(async () => {
    const sent: string[] = [];
    for (let i = 1; i <= 12; i++) {
      await nextMillisecond();
      sent.push(await legacySend(fx.tenant, { message: `sms ${i}` }));
    }
    newestFirst = sent.reverse();
  });

  const list = async (query: string) => {
    const reply = await fx.tenant.root.get(`/sms?${query}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  };
  const ids = (body: { sms_list: { id: string }[] }) => body.sms_list.map((sms) => sms.id);

  describe('when offset is 0', () => {
    it('then it answers the first page, the one offset 1 and no offset answer, and echoes offset 0', async () => {
      const zero = await list('limit=5&offset=0');
      expect(ids(zero)).to.deep.equal(newestFirst.slice(0, 5));
      expect(zero.pagination).to.deep.equal({ total_records: 12, limit: 5, offset: 0 });
      expect((await list('limit=5&offset=1')).sms_list).to.deep.equal(zero.sms_list);
      expect((await list('limit=5')).sms_list).to.deep.equal(zero.sms_list);
    });

    it('then the next pages are still counted from 1: offset 2 is records 6-10, offset 3 the last 2', async () => {
      expect(ids(await list('limit=5&offset=2'))).to.deep.equal(newestFirst.slice(5, 10));
      expect(ids(await list('limit=5&offset=3'))).to.deep.equal(newestFirst.slice(10));
    });

    it('then with a search it is the first page of the matches', async () => {
      const body = await list('limit=2&offset=0&search=sms%201');
      // "sms 1", "sms 10", "sms 11", "sms 12" match; newest first.
      expect(body.sms_list.map((sms: { message: string }) => sms.message)).to.deep.equal(['sms 12', 'sms 11']);
      expect(body.pagination).to.deep.equal({ total_records: 4, limit: 2, offset: 0 });
    });
  });

  describe('when offset is below 0', () => {
    it('then -1 is still a 400 naming offset', async () => {
      const reply = await fx.tenant.root.get('/sms?limit=5&offset=-1');
      expectError(reply, 400, 'validation_failed');
      expect(detailFields(reply)).to.deep.equal(['offset']);
    });
  });
});
