// `sms-gateway users`: the people who log in to the control panel. With --password-stdin the
// password is read from stdin (so it never sits in the shell history or the process list);
// otherwise a one-time password is generated, printed once, and must be changed at first login.
// stdin is read only when asked: a service manager or a CI job may hand the command an open
// stdin that never ends, and guessing from "not a terminal" would make it wait forever.
import { text } from 'node:stream/consumers';
import { ROLES, type Role } from '../../modules/users/types.ts';
import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { parseFlags, withActions } from '../flags.ts';

export const USAGE = `usage:
  sms-gateway users create --account NAME --email E [--role owner|viewer] [--admin] [--password-stdin] [--json]
  sms-gateway users list [--account NAME] [--json]
  sms-gateway users reset-password EMAIL [--password-stdin] [--json]
--password-stdin reads the password from stdin (its first line, at least 12 characters) and uses
it as it is; without it, a one-time password is generated, printed once, and must be changed at
first login.`;

export const usersCommand = withActions({ create, list, 'reset-password': resetPassword }, USAGE);

/** With --password-stdin, the password read from stdin (up to its end); otherwise none. */
async function passwordFromStdin(asked: boolean | undefined): Promise<string | undefined> {
  if (!asked) return undefined;
  const [line = ''] = (await text(process.stdin)).split(/\r?\n/, 1);
  if (line === '') throw new CliError('--password-stdin: nothing was read from stdin (pipe the password in, e.g. `printf %s "$PASSWORD" | sms-gateway users ...`)');
  return line;
}

function oneTimeNote(password: string | undefined): string {
  return password
    ? `\nOne-time password (shown once; it must be changed at first login):\n\n  ${password}\n`
    : '';
}

async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(
    args,
    { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, admin: { type: 'boolean' }, 'password-stdin': { type: 'boolean' } },
    USAGE,
  );
  if (!values.account || !values.email) throw new CliError(`users create needs --account and --email\n${USAGE}`);
  const role = (values.role ?? 'owner') as Role;
  if (!ROLES.includes(role)) throw new CliError(`--role must be one of ${ROLES.join(', ')}`);
  const password = await passwordFromStdin(values['password-stdin']);
  const accountName = values.account;
  const { user, oneTimePassword } = await withAccountServices(async (services) => {
    const account = await services.accounts.require(accountName);
    return services.users.create({ accountId: account.id, email: values.email!, role, isAdmin: values.admin ?? false, ...(password !== undefined ? { password } : {}) });
  });
  out.result(
    {
      id: user.id,
      email: user.email,
      account: accountName,
      role: user.role,
      is_admin: user.is_admin,
      must_change_password: user.must_change_password,
      ...(oneTimePassword ? { one_time_password: oneTimePassword } : {}),
    },
    () => `user ${user.email} created in account ${accountName} (${user.role}${user.is_admin ? ', administrator' : ''})${oneTimeNote(oneTimePassword)}`,
  );
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  const rows = await withAccountServices(async (services) => {
    const accountId = values.account ? (await services.accounts.require(values.account)).id : undefined;
    return services.users.list(accountId);
  });
  const data = rows.map((row) => ({
    id: row.id,
    email: row.email,
    account: row.account_name,
    role: row.role,
    is_admin: row.is_admin,
    must_change_password: row.must_change_password,
    created_at: row.created_at,
    last_login_at: row.last_login_at,
    disabled_at: row.disabled_at,
  }));
  out.rows(data, (row) => ({
    EMAIL: row.email,
    ACCOUNT: row.account,
    ROLE: row.role,
    ADMIN: row.is_admin ? 'yes' : '',
    LAST_LOGIN: row.last_login_at?.toISOString() ?? '-',
    STATE: row.disabled_at ? 'disabled' : row.must_change_password ? 'must change password' : 'active',
  }));
}

async function resetPassword(args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseFlags(args, { 'password-stdin': { type: 'boolean' } }, USAGE, true);
  if (positionals.length !== 1) throw new CliError(`users reset-password takes one email\n${USAGE}`);
  const password = await passwordFromStdin(values['password-stdin']);
  const { user, oneTimePassword } = await withAccountServices((services) => services.users.resetPassword(positionals[0]!, password));
  out.result(
    { id: user.id, email: user.email, must_change_password: user.must_change_password, ...(oneTimePassword ? { one_time_password: oneTimePassword } : {}) },
    () => `password of ${user.email} reset; it must be changed at the next login${oneTimeNote(oneTimePassword)}`,
  );
}
