// Migration 011: keys made with every permission there was before users:manage (the first-start
// key, `keys create --permissions all`) gain it, so their owner can manage users over HTTP; keys
// made with a chosen set keep exactly that set. It also adds accounts.disabled_at.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ALL_BEFORE, up } from '../../db/migrations/20261123_011_users_manage_accounts_disabled.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';

describe('migration 011: users:manage for the keys that held every permission', () => {
  const fx = useGateway({ tenant: 'each' });

  it('adds users:manage to a key made with every older permission, once, and leaves chosen sets alone', async () => {
    const { apiKeys, db } = fx.gateway.services;
    const everything = await apiKeys.create(fx.tenant.accountId, ALL_BEFORE as Permission[], 'old all');
    const chosen = await apiKeys.create(fx.tenant.accountId, ['sms:send', 'keys:manage'], 'chosen');
    const permissionsOf = async (id: string) => (await apiKeys.get(fx.tenant.accountId, id)).permissions;

    await up(db);
    await up(db);

    expect(await permissionsOf(everything.row.id)).to.have.members([...ALL_BEFORE, 'users:manage']);
    expect(await permissionsOf(chosen.row.id)).to.have.members(['sms:send', 'keys:manage']);
    const listed = await fetch(`${fx.baseUrl}/api/ext/v1/users`, { headers: { authorization: `Bearer ${everything.key}` } });
    expect(listed.status).to.equal(200);
    const chosenList = await fetch(`${fx.baseUrl}/api/ext/v1/users`, { headers: { authorization: `Bearer ${chosen.key}` } });
    expect(chosenList.status).to.equal(403);
  });
});
