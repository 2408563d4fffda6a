// Migration 010: keys made with every permission there was before keys:manage (the first-start
// key, `keys create --permissions all`) gain it, so their owner can manage keys over HTTP; keys
// made with a chosen set keep exactly that set.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ALL_BEFORE, up } from '../../db/migrations/20261122_010_keys_manage.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';

describe('migration 010: keys:manage for the keys that held every permission', () => {
  const fx = useGateway({ tenant: 'each' });

  it('adds keys:manage to a key made with every older permission, once, and leaves chosen sets alone', async () => {
    const { apiKeys, db } = fx.gateway.services;
    const everything = await apiKeys.create(fx.tenant.accountId, ALL_BEFORE as Permission[], 'old all');
    const chosen = await apiKeys.create(fx.tenant.accountId, ['sms:send', 'sms:read'], 'chosen');
    const permissionsOf = async (id: string) => (await apiKeys.get(fx.tenant.accountId, id)).permissions;

    await up(db);
    await up(db);

    expect(await permissionsOf(everything.row.id)).to.have.members([...ALL_BEFORE, 'keys:manage']);
    expect(await permissionsOf(chosen.row.id)).to.have.members(['sms:send', 'sms:read']);
    // Through the API: the old "all" key (cache aside) can now list keys.
    const listed = await fetch(`${fx.baseUrl}/api/ext/v1/keys`, { headers: { authorization: `Bearer ${everything.key}` } });
    expect(listed.status).to.equal(200);
  });
});
