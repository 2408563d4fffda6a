// The migrations that gave a new permission to the keys made with every permission there was
// before it (the first-start key, `keys create --permissions all`): such a key gains it, once
// however often the step runs, and can use what it opens over HTTP; a key made with a chosen set
// keeps exactly that set and is still refused there.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import * as keysManage from '../../db/migrations/20261122_010_keys_manage.ts';
import * as usersManage from '../../db/migrations/20261123_011_users_manage_accounts_disabled.ts';
import * as upstreams from '../../db/migrations/20261210_054_upstreams_for_all_keys.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';
import type { Database } from '../../src/storage/database.ts';

interface GrantingStep {
  name: string;
  step: { ALL_BEFORE: string[]; up(db: Database): Promise<void> };
  granted: string[];
  /** A list the granted permission opens. */
  opens: string;
}

const STEPS: GrantingStep[] = [
  { name: '20261122_010_keys_manage', step: keysManage, granted: ['keys:manage'], opens: '/keys' },
  { name: '20261123_011_users_manage_accounts_disabled', step: usersManage, granted: ['users:manage'], opens: '/users' },
  { name: '20261210_054_upstreams_for_all_keys', step: upstreams, granted: upstreams.NEW_PERMISSIONS, opens: '/upstreams' },
];

describe('migrations that grant a new permission to the keys that held every one', () => {
  const fx = useGateway({ tenant: 'each' });

  for (const { name, step, granted, opens } of STEPS) {
    it(`${name}: adds ${granted.join(', ')} to a key made with every older permission, once, and leaves chosen sets alone`, async () => {
      const { apiKeys, db } = fx.gateway.services;
      const everything = await apiKeys.create(fx.tenant.accountId, step.ALL_BEFORE as Permission[], 'old all');
      const chosen = await apiKeys.create(fx.tenant.accountId, ['sms:send', 'sms:read'], 'chosen');
      const permissionsOf = async (id: string) => (await apiKeys.get(fx.tenant.accountId, id)).permissions;

      await step.up(db);
      await step.up(db);

      expect(await permissionsOf(everything.row.id)).to.have.members([...step.ALL_BEFORE, ...granted]);
      expect(await permissionsOf(chosen.row.id)).to.have.members(['sms:send', 'sms:read']);
      const listedBy = async (key: string) => (await fetch(`${fx.baseUrl}/api/ext/v1${opens}`, { headers: { authorization: `Bearer ${key}` } })).status;
      expect(await listedBy(everything.key), `${opens} with the old "all" key`).to.equal(200);
      expect(await listedBy(chosen.key), `${opens} with a chosen set`).to.equal(403);
    });
  }
});
