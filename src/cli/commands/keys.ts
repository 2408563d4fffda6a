import { PERMISSIONS, parsePermissionList } from '../../modules/api-keys/permissions.ts';
import { keyPrefix } from '../../modules/api-keys/key-format.ts';
import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { curlThroughGateway } from '../through-gateway.ts';
import { withAccountServicesToldToTheCluster } from '../cluster-notice.ts';
import { parseFlags, withActions } from '../flags.ts';

export const USAGE = `usage:
  sms-gateway keys create --account NAME --permissions a,b|all [--name LABEL] [--json]
  sms-gateway keys list [--account NAME] [--json]
  sms-gateway keys revoke ID|PREFIX [--json]
permissions: ${PERMISSIONS.join(', ')}
  (all: every one but sms:send_transactional, which sends past the suppression list and is granted only when named)`;

export const keysCommand = withActions({ create, list, revoke }, USAGE);

async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, permissions: { type: 'string' }, name: { type: 'string' } }, USAGE);
  if (!values.account || !values.permissions) throw new CliError(`keys create needs --account and --permissions\n${USAGE}`);
  const { permissions, unknown } = parsePermissionList(values.permissions);
  if (unknown.length > 0) throw new CliError(`unknown permission(s): ${unknown.join(', ')}\npermissions: ${PERMISSIONS.join(', ')}`);
  if (permissions.length === 0) throw new CliError('--permissions names no permission');
  const accountName = values.account;
  const body = { ...(values.name ? { name: values.name } : {}), permissions };
  const { key, row } = await withAccountServices(
    async (services) => {
      const account = await services.accounts.require(accountName);
      return services.apiKeys.create(account.id, permissions, values.name ?? '');
    },
    (api) => curlThroughGateway('POST', `${api}/keys`, 'keys:manage', accountName, body),
  );
  out.result(
    { key, id: row.id, prefix: row.prefix, account: accountName, permissions: row.permissions },
    () => `${key}\n\nThe key above is shown once; only its hash is stored. Prefix ${row.prefix}, permissions: ${row.permissions.join(', ')}`,
  );
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  const rows = await withAccountServices(
    async (services) => {
      const accountId = values.account ? (await services.accounts.require(values.account)).id : undefined;
      return services.apiKeys.list(accountId);
    },
    (api) => curlThroughGateway('GET', `${api}/keys`, 'keys:manage', values.account),
  );
  const data = rows.map((row) => ({
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    account: row.account_name,
    permissions: row.permissions,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  }));
  out.rows(data, (row) => ({
    PREFIX: row.prefix,
    ACCOUNT: row.account,
    NAME: row.name,
    PERMISSIONS: row.permissions.join(','),
    LAST_USED: row.last_used_at?.toISOString() ?? '-',
    STATE: row.revoked_at ? 'revoked' : 'active',
  }));
}

async function revoke(args: string[], out: Output): Promise<void> {
  const { positionals } = parseFlags(args, {}, USAGE, true);
  if (positionals.length !== 1) throw new CliError(`keys revoke takes one key id or prefix\n${USAGE}`);
  // A whole key is taken too: it is reduced to its prefix and never printed back.
  const target = keyPrefix(positionals[0]!) ?? positionals[0]!;
  if (target.length > 40) throw new CliError('give the key id or its prefix (sgw_ and 10 hex digits)', 1);
  // Told to the running gateways over Redis when there is one: they drop the key from their
  // caches at once instead of serving it for up to 5 s more.
  const row = await withAccountServicesToldToTheCluster(
    (services) => services.apiKeys.revoke(target),
    // The HTTP API names a key by its id; a prefix is found in GET /keys.
    (api) => curlThroughGateway('DELETE', `${api}/keys/${target.startsWith('sgw_') ? `<id of ${target}, from GET /keys>` : target}`, 'keys:manage'),
  );
  if (!row) throw new CliError(`no key with id or prefix "${target}"`, 1);
  // A key revoked before is answered as the API answers it: done, exit 0, with the time it was revoked.
  out.result({ id: row.id, prefix: row.prefix, revoked_at: row.revoked_at }, () => `key ${row.prefix} revoked`);
}
