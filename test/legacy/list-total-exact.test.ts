// GET /sms answers total_records as the total SMS count: a client computing pages from it must
// reach every SMS. Without a search the count is exact whatever the history holds (the account's
// count is kept as SMS are written); a search is exact up to LEGACY_COUNT_CAP, or always with
// LEGACY_COUNT_CAP=off, and X-Total-Records-Exact says which. Here the histories pass 1,000 SMS,
// where total_records used to stop.
import { expect } from 'chai';
import { useGateway, type GatewayFixture } from '../support/use-gateway.ts';
import type { Tenant } from '../support/tenant.ts';
import { legacySend } from '../support/legacy.ts';
import { fillSmsHistory } from '../support/test-data.ts';

const EXACT = 'x-total-records-exact';
/** SMS written straight into the table, as an import or a busy month would leave them. */
const HISTORY = 1_200;

/** `count` SMS of the tenant in one INSERT ("order {i}", one in three also "urgent"); the writers' counting applies to any insert. */
function fillHistory(fx: GatewayFixture, tenant: Tenant, count: number): Promise<void> {
  return fillSmsHistory(fx, tenant.accountId, count);
}

/** total_records and the exactness header of GET /sms with these parameters. */
async function total(tenant: Tenant, params: Record<string, string | number>): Promise<{ total: number; exact: string | null }> {
  const query = new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]));
  const reply = await tenant.root.get(`/sms?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  return { total: reply.body.pagination.total_records, exact: reply.headers.get(EXACT) };
}

describe('legacy API: GET /sms, total_records past 1,000 SMS', () => {
  describe('with the default settings', () => {
    const fx = useGateway();

    it('then the list without a search counts every SMS, exactly, as SMS are sent and deleted', async () => {
      await fillHistory(fx, fx.tenant, HISTORY);
      expect(await total(fx.tenant, { limit: 10 })).to.deep.equal({ total: HISTORY, exact: 'true' });
      const sent = await legacySend(fx.tenant, { message: 'one more' });
      await legacySend(fx.tenant, { message: 'and another' });
      expect(await total(fx.tenant, { limit: 100, offset: 3 })).to.deep.equal({ total: HISTORY + 2, exact: 'true' });
      expect((await fx.tenant.root.request('DELETE', `/sms/del?id=${sent}`)).status).to.equal(204);
      expect(await total(fx.tenant, { limit: 10 })).to.deep.equal({ total: HISTORY + 1, exact: 'true' });
      // Another account's SMS are its own.
      const other = await fx.newTenant();
      await legacySend(other);
      expect(await total(other, { limit: 10 })).to.deep.equal({ total: 1, exact: 'true' });
      expect(await total(fx.tenant, { limit: 10 })).to.deep.equal({ total: HISTORY + 1, exact: 'true' });
    });

    it('then a search matching more than 1,000 SMS is counted exactly', async () => {
      await fillHistory(fx, fx.tenant, HISTORY);
      expect(await total(fx.tenant, { limit: 10, search: 'order' })).to.deep.equal({ total: HISTORY, exact: 'true' });
      expect(await total(fx.tenant, { limit: 10, search: 'urgent' })).to.deep.equal({ total: HISTORY / 3, exact: 'true' });
    });
  });

  describe('with LEGACY_COUNT_CAP=1000', () => {
    const fx = useGateway({ config: { legacyCountCap: 1000 } });

    it('then a search past the cap answers the cap and says it is not exact; the list without a search stays exact', async () => {
      await fillHistory(fx, fx.tenant, HISTORY);
      expect(await total(fx.tenant, { limit: 10, search: 'order' })).to.deep.equal({ total: 1000, exact: 'false' });
      expect(await total(fx.tenant, { limit: 10, search: 'urgent' })).to.deep.equal({ total: HISTORY / 3, exact: 'true' });
      expect(await total(fx.tenant, { limit: 10 })).to.deep.equal({ total: HISTORY, exact: 'true' });
    });
  });

  describe('with LEGACY_COUNT_CAP=off', () => {
    const fx = useGateway({ config: { legacyCountCap: 'off' } });

    it('then every match is counted', async () => {
      await fillHistory(fx, fx.tenant, 2_500);
      expect(await total(fx.tenant, { limit: 10, search: 'order' })).to.deep.equal({ total: 2_500, exact: 'true' });
    });
  });
});
