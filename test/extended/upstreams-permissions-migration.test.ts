// Migration 054: keys made with every permission there was before the upstream ones (the
// first-start key, `keys create --permissions all`, on a gateway upgraded past 047) gain
// upstreams:read and upstreams:write, as a fresh install's first-start key holds them; keys made
// with a chosen set keep exactly that set.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ALL_BEFORE, up } from '../../db/migrations/20261210_054_upstreams_for_all_keys.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';

describe('migration 054: the upstream permissions for the keys that held every permission', () => {
  const fx = useGateway({ tenant: 'each' });

  it('adds them to a key made with every older permission, once, and leaves chosen sets alone', async () => {
    const { apiKeys, db } = fx.gateway.services;
    const everything = await apiKeys.create(fx.tenant.accountId, ALL_BEFORE as Permission[], 'old all');
    const chosen = await apiKeys.create(fx.tenant.accountId, ['sms:send', 'keys:manage'], 'chosen');
    const permissionsOf = async (id: string) => (await apiKeys.get(fx.tenant.accountId, id)).permissions;

    await up(db);
    await up(db);

    expect(await permissionsOf(everything.row.id)).to.have.members([...ALL_BEFORE, 'upstreams:read', 'upstreams:write']);
    expect(await permissionsOf(chosen.row.id)).to.have.members(['sms:send', 'keys:manage']);
    const listed = await fetch(`${fx.baseUrl}/api/ext/v1/upstreams`, { headers: { authorization: `Bearer ${everything.key}` } });
    expect(listed.status).to.equal(200);
    const chosenList = await fetch(`${fx.baseUrl}/api/ext/v1/upstreams`, { headers: { authorization: `Bearer ${chosen.key}` } });
    expect(chosenList.status).to.equal(403);
  });
});
