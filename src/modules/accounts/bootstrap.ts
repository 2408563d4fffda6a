// First start on an empty database: an account, a key with every permission, and an owner who
// is also the instance administrator, so a newcomer can send an SMS within a minute of
// `npm start` and log in to the control panel. The key and the administrator's one-time
// password are returned once and never logged: `serve` shows them on the terminal, or in a file
// only its user can read (cli/commands/serve.ts). The password must be changed at first login.
import { ALL_ORDINARY } from '../api-keys/permissions.ts';
import { exclusively, LOCKS, type Database } from '../../storage/database.ts';
import type { ApiKeyService } from '../api-keys/service.ts';
import type { UserService } from '../users/service.ts';
import type { AccountService } from './service.ts';

export const DEFAULT_ACCOUNT = 'default';
/** ADMIN_EMAIL's default (src/config.ts). */
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

export interface FirstStart {
  account: string;
  key: string;
  admin: { email: string; password: string };
}

/** What the first start creates with. */
export interface FirstStartParts {
  db: Database;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  users: UserService;
}

export async function bootstrapFirstAccount(services: FirstStartParts, adminEmail = DEFAULT_ADMIN_EMAIL): Promise<FirstStart | undefined> {
  // Nodes starting together on an empty database take turns: one creates, the others find it done.
  return exclusively(services.db, LOCKS.firstStart, async () => {
    if ((await services.accounts.count()) > 0) return undefined;
    const account = await services.accounts.create(DEFAULT_ACCOUNT);
    const { key } = await services.apiKeys.create(account.id, [...ALL_ORDINARY], 'first-start key');
    const { user, oneTimePassword } = await services.users.create({ accountId: account.id, email: adminEmail, role: 'owner', isAdmin: true });
    return { account: account.name, key, admin: { email: user.email, password: oneTimePassword! } };
  });
}
