// First start on an empty database: an account and a key with every permission, so a newcomer
// can send an SMS within a minute of `npm start`. The key is returned once and never logged:
// `serve` shows it on the terminal, or in a file only its user can read (cli/commands/serve.ts).
import { PERMISSIONS } from '../api-keys/permissions.ts';
import type { Services } from '../../services.ts';

export const DEFAULT_ACCOUNT = 'default';

export async function bootstrapFirstAccount(services: Services): Promise<{ account: string; key: string } | undefined> {
  if ((await services.accounts.count()) > 0) return undefined;
  const account = await services.accounts.create(DEFAULT_ACCOUNT);
  const { key } = await services.apiKeys.create(account.id, [...PERMISSIONS], 'first-start key');
  return { account: account.name, key };
}
