import type { Output } from '../output.ts';
import { CliError } from '../output.ts';
import { withAccountServices } from '../context.ts';

export const USAGE = `usage: sms-gateway accounts create NAME [--json]
Creates an account: the tenant that owns devices, SMS, API keys, webhooks and users.`;

export async function accountsCommand(args: string[], out: Output): Promise<void> {
  const [action, name, ...rest] = args;
  if (action !== 'create' || !name || rest.length > 0) throw new CliError(USAGE);
  const account = await withAccountServices((services) => services.accounts.create(name));
  out.result({ id: account.id, name: account.name, created_at: account.created_at }, () => `account "${account.name}" created (${account.id})`);
}
