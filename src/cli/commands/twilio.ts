// `sms-gateway twilio credentials create|list|delete`: the AccountSid and auth token that Twilio's
// helper libraries authenticate with against the gateway's Twilio-compatible API (docs/twilio.md).
// The token is printed once, at creation; it is stored encrypted, as it signs the callbacks.
import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { curlThroughGateway } from '../through-gateway.ts';
import { parseFlags, withActions } from '../flags.ts';

export const USAGE = `usage:
  sms-gateway twilio credentials create --account NAME [--name LABEL] [--sms-url URL] [--json]
  sms-gateway twilio credentials list [--account NAME] [--json]
  sms-gateway twilio credentials delete ACCOUNT_SID [--json]`;

const credentials = withActions({ create, list, delete: remove }, USAGE);

export const twilioCommand = withActions({ credentials }, USAGE);

async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, name: { type: 'string' }, 'sms-url': { type: 'string' } }, USAGE);
  if (!values.account) throw new CliError(`twilio credentials create needs --account\n${USAGE}`);
  const accountName = values.account;
  const body = { ...(values.name ? { friendly_name: values.name } : {}), ...(values['sms-url'] ? { sms_url: values['sms-url'] } : {}) };
  const { credential, authToken } = await withAccountServices(
    async (services) => {
      const account = await services.accounts.require(accountName);
      return services.twilio.create(account.id, { friendlyName: values.name, smsUrl: values['sms-url'] });
    },
    (api) => curlThroughGateway('POST', `${api}/twilio/credentials`, 'keys:manage', accountName, body),
  );
  out.result(
    { account_sid: credential.sid, auth_token: authToken, account: accountName, friendly_name: credential.friendly_name, sms_url: credential.sms_url },
    () => `AccountSid ${credential.sid}\nAuthToken  ${authToken}\n\nThe auth token above is shown once; it is stored encrypted. Point Twilio's helper library at this gateway (docs/twilio.md).`,
  );
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  const { rows, accountNames } = await withAccountServices(
    async (services) => {
      const rows = await services.twilio.list(values.account ? (await services.accounts.require(values.account)).id : undefined);
      // Without --account the rows are every account's: each names its own.
      return { rows, accountNames: await services.accounts.namesById(rows.map((row) => row.account_id)) };
    },
    (api) => curlThroughGateway('GET', `${api}/twilio/credentials`, 'keys:manage', values.account),
  );
  const data = rows.map((row) => ({
    account_sid: row.sid,
    account_id: row.account_id,
    account: accountNames.get(row.account_id) ?? row.account_id,
    friendly_name: row.friendly_name,
    sms_url: row.sms_url,
    // Its token cannot be decrypted with the gateway's key: every request is refused until it is rotated.
    auth_token_unreadable: row.auth_token_unreadable_at !== null,
    created_at: row.created_at,
  }));
  out.rows(data, (row) => ({
    ACCOUNT_SID: row.account_sid,
    ACCOUNT: row.account,
    NAME: row.friendly_name,
    SMS_URL: row.sms_url ?? '-',
    TOKEN: row.auth_token_unreadable ? 'unreadable: rotate it' : 'ok',
    CREATED: row.created_at.toISOString(),
  }));
}

async function remove(args: string[], out: Output): Promise<void> {
  const { positionals } = parseFlags(args, {}, USAGE, true);
  if (positionals.length !== 1 || !/^AC[0-9a-f]{32}$/.test(positionals[0]!)) throw new CliError(`twilio credentials delete takes one AccountSid (AC and 32 hex digits)\n${USAGE}`);
  const sid = positionals[0]!;
  await withAccountServices(
    async (services) => {
      const row = (await services.twilio.list(undefined)).find((credential) => credential.sid === sid);
      if (!row) throw new CliError(`no Twilio credential ${sid}`, 1);
      await services.twilio.delete(row.account_id, sid);
    },
    (api) => curlThroughGateway('DELETE', `${api}/twilio/credentials/${sid}`, 'keys:manage'),
  );
  out.result({ account_sid: sid, deleted: true }, () => `Twilio credential ${sid} deleted`);
}
