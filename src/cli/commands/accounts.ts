import type { Output } from '../output.ts';
import { CliError } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { parseFlags, withActions } from '../flags.ts';

export const USAGE = `usage: sms-gateway accounts create NAME [--json]
Creates an account: the tenant that owns devices, SMS, API keys, webhooks and users.`;

export const accountsCommand = withActions({ create }, USAGE);

async function create(args: string[], out: Output): Promise<void> {
  const { positionals } = parseFlags(args, {}, USAGE, true);
  const [name] = positionals;
  if (positionals.length !== 1 || !name) throw new CliError(`accounts create takes one account name\n${USAGE}`);
  const account = await withAccountServices((services) => services.accounts.create(name));
  out.result({ id: account.id, name: account.name, created_at: account.created_at }, () => `account "${account.name}" created (${account.id})`);
}
