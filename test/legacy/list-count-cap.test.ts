// GET /sms counts a search's matches for total_records up to LEGACY_COUNT_CAP, as search engines cap the
// count for broad terms, and the response says so (README, "Legacy API"). Up to the cap
// total_records is exact; past it, a lower bound, and X-Total-Records-Exact says which. The
// pages themselves never change: the same SMS, newest first, whatever the count.
// Here the cap is 5, so that a handful of SMS go past it.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply, Tenant } from '../support/tenant.ts';
import { expectLegacySms, legacySend, nextMillisecond } from '../support/legacy.ts';

const CAP = 5;
const EXACT = 'x-total-records-exact';

describe('legacy API: GET /sms, total_records past LEGACY_COUNT_CAP', () => {
  const fx = useGateway({ config: { legacyCountCap: CAP } });

  interface Page {
    ids: string[];
    total: number;
    exact: string | null;
  }

  /** GET /sms that must succeed, in the spec's shape; its ids, total_records and the exactness header. */
  async function page(params: Record<string, string | number>, tenant: Tenant = fx.tenant): Promise<Page> {
    const query = new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]));
    const reply: Reply = await tenant.root.get(`/sms?${query}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(Object.keys(reply.body)).to.have.members(['pagination', 'sms_list']);
    expect(Object.keys(reply.body.pagination), 'the spec\'s pagination, nothing added').to.have.members(['total_records', 'limit', 'offset']);
    expect(reply.body.pagination).to.include({ limit: Number(params.limit), offset: Number(params.offset ?? 1) });
    for (const sms of reply.body.sms_list) expectLegacySms(sms);
    return { ids: reply.body.sms_list.map((sms: { id: string }) => sms.id), total: reply.body.pagination.total_records, exact: reply.headers.get(EXACT) };
  }

  /** Sends SMS with these messages one after another, each strictly newer; ids newest first. */
  async function send(messages: string[], tenant: Tenant = fx.tenant): Promise<string[]> {
    const ids: string[] = [];
    for (const message of messages) {
      await nextMillisecond();
      ids.unshift(await legacySend(tenant, { message }));
    }
    return ids;
  }

  const numbered = (word: string, count: number) => Array.from({ length: count }, (_, i) => `${word} ${i + 1}`);

  describe('when the search matches no more SMS than the cap', () => {
    it('then total_records is exact and the header says true, at the cap too', async () => {
      const four = await send(numbered('apple', 4));
      expect(await page({ limit: 2, search: 'apple' })).to.deep.equal({ ids: four.slice(0, 2), total: 4, exact: 'true' });
      const five = await send(numbered('pear', CAP));
      expect(await page({ limit: 2, search: 'pear' }), 'exactly the cap is still exact').to.deep.equal({ ids: five.slice(0, 2), total: CAP, exact: 'true' });
      expect(await page({ limit: 2, search: 'nothing like it' })).to.deep.equal({ ids: [], total: 0, exact: 'true' });
    });

    it('then another account\'s SMS are never counted toward the cap', async () => {
      await send(numbered('shared', 10), await fx.newTenant());
      const mine = await send(numbered('shared', 3));
      expect(await page({ limit: 10, search: 'shared' })).to.deep.equal({ ids: mine, total: 3, exact: 'true' });
    });
  });

  describe('when the search matches more SMS than the cap', () => {
    let matches: string[];
    beforeEach(async () => {
      matches = await send([...numbered('order', 8), 'other 1', 'other 2']);
      matches = matches.filter((_id, i) => i >= 2); // the two "other" SMS are the newest
    });

    it('then the first page says "at least the cap": total_records is the cap and the header says false', async () => {
      expect(await page({ limit: 2, search: 'order' })).to.deep.equal({ ids: matches.slice(0, 2), total: CAP, exact: 'false' });
      expect(await page({ limit: 2, offset: 2, search: 'ORDER' })).to.deep.equal({ ids: matches.slice(2, 4), total: CAP, exact: 'false' });
    });

    it('then a page past the cap says at least the matches up to it and one more, and the last page is exact', async () => {
      // Records 5-6 of 8: the page shows that 7 exist at least.
      expect(await page({ limit: 2, offset: 3, search: 'order' })).to.deep.equal({ ids: matches.slice(4, 6), total: 7, exact: 'false' });
      expect(await page({ limit: 2, offset: 4, search: 'order' })).to.deep.equal({ ids: matches.slice(6, 8), total: 8, exact: 'true' });
      expect(await page({ limit: 3, offset: 3, search: 'order' }), 'a short last page').to.deep.equal({ ids: matches.slice(6, 8), total: 8, exact: 'true' });
    });

    it('then a page past the end is empty and total_records is still the cap, not exact', async () => {
      expect(await page({ limit: 2, offset: 10, search: 'order' })).to.deep.equal({ ids: [], total: CAP, exact: 'false' });
    });

    it('then paging by total_records walks every match once, newest first, as with an exact count', async () => {
      const walked: string[] = [];
      for (let offset = 1; offset <= 10; offset++) {
        const { ids, total } = await page({ limit: 2, offset, search: 'order' });
        walked.push(...ids);
        // A client that stops at ceil(total_records / limit) pages must still reach the end.
        if (offset >= Math.ceil(total / 2)) break;
      }
      expect(walked).to.deep.equal(matches);
    });

    it('then the list without a search is still exact: the account\'s count costs nothing to read', async () => {
      const all = await page({ limit: 4 });
      expect(all).to.include({ total: 10, exact: 'true' });
      expect(all.ids.slice(2)).to.deep.equal(matches.slice(0, 2));
      expect(await page({ limit: 20 })).to.include({ total: 10, exact: 'true' });
    });

    it('then a status label matching them all counts the same way', async () => {
      expect(await page({ limit: 2, search: 'waiting' })).to.include({ total: CAP, exact: 'false' });
      expect(await page({ limit: 2, offset: 5, search: 'WAIT' })).to.include({ total: 10, exact: 'true' });
    });
  });
});
