// `sms-gateway smpp credentials create|list|delete`: the credentials ESMEs bind with. The
// password is printed once; only its hash is stored. A credential deleted here is refused at its
// next bind; a session bound on a running gateway is unbound within SMPP_ENQUIRE_LINK_INTERVAL
// (the API's DELETE unbinds it at once).
import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { withAccountServicesToldToTheCluster } from '../cluster-notice.ts';
import { parseFlags, wholeNumberFlag, withActions } from '../flags.ts';
import { DEFAULT_ALPHABETS, type DefaultAlphabet } from '../../modules/smpp/types.ts';

export const USAGE = `usage:
  sms-gateway smpp credentials create --account NAME [--system-id ID] [--name LABEL]
                                      [--devices ID,ID] [--throughput N] [--window N]
                                      [--default-data-coding gsm7|ascii|latin1] [--json]
  sms-gateway smpp credentials list [--account NAME] [--json]
  sms-gateway smpp credentials delete ID [--json]
system-id: 1-15 letters, digits, dots, underscores or dashes (made up when omitted);
throughput: submit_sm per second (default 10); window: unacknowledged PDUs (default 10);
default-data-coding: what the ESME means by data_coding 0 (default gsm7).`;

export const smppCommand = withActions({ credentials: withActions({ create, list, delete: remove }, USAGE) }, USAGE);

async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(
    args,
    { account: { type: 'string' }, 'system-id': { type: 'string' }, name: { type: 'string' }, devices: { type: 'string' }, throughput: { type: 'string' }, window: { type: 'string' }, 'default-data-coding': { type: 'string' } },
    USAGE,
  );
  if (!values.account) throw new CliError(`smpp credentials create needs --account\n${USAGE}`);
  const accountName = values.account;
  const throughput = values.throughput === undefined ? undefined : wholeNumberFlag('--throughput', values.throughput, 1, 10_000);
  const windowSize = values.window === undefined ? undefined : wholeNumberFlag('--window', values.window, 1, 1_000);
  const deviceIds = values.devices ? values.devices.split(',').map((id) => id.trim()).filter(Boolean) : undefined;
  const { credential, password } = await withAccountServices(
    async (services) => {
      const account = await services.accounts.require(accountName);
      return services.smpp.issue(account.id, { systemId: values['system-id'], name: values.name, deviceIds, throughputPerSecond: throughput, windowSize, defaultDataCoding: defaultAlphabet(values['default-data-coding']) });
    },
    (api) => `KEY=...   # a key of account ${accountName} that holds keys:manage\n  curl -s -X POST '${api}/smpp/credentials' -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{}'`,
  );
  out.result(
    { id: credential.id, system_id: credential.system_id, password, account: accountName },
    () => `system_id ${credential.system_id}\npassword  ${password}\n\nThe password above is shown once; only its hash is stored. Credential id ${credential.id}.`,
  );
}

function defaultAlphabet(value: string | undefined): DefaultAlphabet | undefined {
  if (value === undefined) return undefined;
  if (!(DEFAULT_ALPHABETS as readonly string[]).includes(value)) throw new CliError(`--default-data-coding must be one of ${DEFAULT_ALPHABETS.join(', ')}\n${USAGE}`);
  return value as DefaultAlphabet;
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  const rows = await withAccountServices(
    async (services) => {
      const credentials = await services.smpp.list(values.account ? (await services.accounts.require(values.account)).id : undefined);
      // Without --account the rows are every account's: each names its own.
      const accountNames = await services.accounts.namesById(credentials.map((row) => row.account_id));
      return credentials.map((row) => ({ ...row, account: accountNames.get(row.account_id) ?? row.account_id }));
    },
    (api) => `KEY=...   # a key of the account that holds keys:manage\n  curl -s '${api}/smpp/credentials' -H "Authorization: Bearer $KEY"`,
  );
  out.rows(rows, (row) => ({
    ID: row.id,
    SYSTEM_ID: row.system_id,
    ACCOUNT: row.account,
    NAME: row.name,
    THROUGHPUT: String(row.throughput_per_second),
    WINDOW: String(row.window_size),
    DATA_CODING_0: row.default_data_coding,
    STATE: row.revoked_at ? 'revoked' : 'active',
  }));
}

async function remove(args: string[], out: Output): Promise<void> {
  const { positionals } = parseFlags(args, {}, USAGE, true);
  if (positionals.length !== 1 || !/^[0-9a-f-]{36}$/i.test(positionals[0]!)) throw new CliError(`smpp credentials delete takes one credential id (from smpp credentials list)\n${USAGE}`);
  const id = positionals[0]!;
  // Told to the running gateways over Redis when there is one: they unbind its sessions at once
  // instead of at their next enquire_link.
  const row = await withAccountServicesToldToTheCluster(
    (services) => services.smpp.revoke(undefined, id),
    (api) => `KEY=...   # a key of the account that holds keys:manage\n  curl -s -X DELETE '${api}/smpp/credentials/${id}' -H "Authorization: Bearer $KEY"`,
  );
  out.result({ id: row.id, system_id: row.system_id, revoked_at: row.revoked_at }, () => `SMPP credential ${row.system_id} revoked`);
}
