// `sms-gateway upstreams create|list|show|update|enable|disable|delete`: an account's upstream
// providers without the HTTP API. The settings are the API's own body, checked by its schema; the
// secret (password, auth_token) comes from a file or stdin, never from a flag's value, which
// every user of the machine sees in the process list.
import { text } from 'node:stream/consumers';
import type { Static } from '@sinclair/typebox';
import { AppError } from '../../common/errors.ts';
import { isUuid } from '../../common/object-id.ts';
import { CreateUpstreamBody, UpdateUpstreamBody, type UpstreamView } from '../../modules/upstreams/schema.ts';
import { SECRET_FIELDS, secretField } from '../../modules/upstreams/settings.ts';
import type { UpstreamKind } from '../../modules/upstreams/types.ts';
import { parseFlags, withActions } from '../flags.ts';
import { bodyChecker, parseJson, readInput, refusal } from '../json-body.ts';
import { CliError, table, type Output } from '../output.ts';
import { firstLineOfFile } from '../secret-file.ts';
import { TAKES_EFFECT, withUpstreamServices, type UpstreamCommandServices } from '../upstream-service.ts';

export const USAGE = `usage:
  sms-gateway upstreams create --account NAME (--settings-file FILE | --settings JSON)
                               [--secret-file FILE | --secret-stdin] [--json]
  sms-gateway upstreams list --account NAME [--json]
  sms-gateway upstreams show --account NAME ID [--json]
  sms-gateway upstreams update --account NAME ID [--settings-file FILE | --settings JSON]
                               [--secret-file FILE | --secret-stdin] [--json]
  sms-gateway upstreams enable|disable --account NAME ID [--json]
  sms-gateway upstreams delete --account NAME ID [--json]
The settings are the JSON body of POST /api/ext/v1/upstreams (for update, that of PATCH: only
the fields to change), checked as the API checks it; docs/routes.md lists every field. E.g.
  {"name": "carrier", "kind": "smpp", "host": "smsc.example.net", "port": 2775, "system_id": "acme"}
  {"name": "twilio", "kind": "twilio", "base_url": "https://api.twilio.com",
   "account_sid": "AC...", "from": "+15005550006"}
--settings-file - reads them from stdin.
The secret (an smpp upstream's password, a twilio upstream's auth_token) is the first line of
--secret-file, or of stdin with --secret-stdin, or a field of the settings file; never of
--settings, which the process list shows. It is kept encrypted and never shown.
show gives this month's segments and spend. delete is refused while the routes name the upstream.
${TAKES_EFFECT}`;

export const upstreamsCommand = withActions(
  { create, list, show, update, enable: (args, out) => setEnabled(args, out, true), disable: (args, out) => setEnabled(args, out, false), delete: remove },
  USAGE,
);

type View = Static<typeof UpstreamView>;
type Posted = Record<string, unknown>;

const checkCreate = bodyChecker(CreateUpstreamBody);
const checkUpdate = bodyChecker(UpdateUpstreamBody);

const SETTINGS_FLAGS = { 'settings-file': { type: 'string' }, settings: { type: 'string' }, 'secret-file': { type: 'string' }, 'secret-stdin': { type: 'boolean' } } as const;
async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, ...SETTINGS_FLAGS }, USAGE);
  if (!values.account || (values.settings === undefined && values['settings-file'] === undefined)) {
    throw new CliError(`upstreams create needs --account and --settings-file or --settings\n${USAGE}`);
  }
  const account = values.account;
  const { body, source } = await settingsFrom(values);
  const secret = await secretFrom(values);
  if (secret !== undefined && isKind(body.kind)) putSecret(body, body.kind, secret, source);
  const valid = checkCreate(source, body);
  const view = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.create((await accounts.require(account)).id, valid),
    (api) => `KEY=...   # a key of account ${account} that holds upstreams:write\n  curl -s -X POST '${api}/upstreams' -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data @FILE`,
  ).catch(told(account, undefined, source));
  out.result(present(view), () => `upstream ${view.id} created: ${view.name} (${view.kind}, ${view.enabled ? 'enabled' : 'disabled'})\n  name it in the routes: sms-gateway routes set --account ${account} --file FILE`);
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  if (!values.account) throw new CliError(`upstreams list needs --account\n${USAGE}`);
  const account = values.account;
  const views = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.list((await accounts.require(account)).id),
    (api) => `curl -s '${api}/upstreams' -H "Authorization: Bearer $KEY"   # a key of account ${account} that holds upstreams:read`,
  );
  out.rows(views.map(present), (view) => ({
    ID: view.id,
    NAME: view.name,
    KIND: view.kind,
    STATE: view.enabled ? 'enabled' : 'disabled',
    [`SEGMENTS ${view.month.month}`]: String(view.month.segments),
    SPENT: spentText(view),
  }));
}

async function show(args: string[], out: Output): Promise<void> {
  const { account, id } = accountAndId('show', args);
  const view = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.get((await accounts.require(account)).id, id),
    (api) => `curl -s '${api}/upstreams/${id}' -H "Authorization: Bearer $KEY"   # a key of account ${account} that holds upstreams:read`,
  ).catch(told(account, id));
  out.result(present(view), () => describe(view));
}

async function update(args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseFlags(args, { account: { type: 'string' }, ...SETTINGS_FLAGS }, USAGE, true);
  const id = oneId('update', values.account, positionals);
  const account = values.account!;
  const given = values.settings !== undefined || values['settings-file'] !== undefined;
  const { body, source } = given ? await settingsFrom(values) : { body: {} as Posted, source: 'the change' };
  const secret = await secretFrom(values);
  if (!given && secret === undefined) throw new CliError(`upstreams update needs --settings-file, --settings or a new secret (--secret-file, --secret-stdin)\n${USAGE}`);
  checkUpdate(source, { ...body });
  const view = await withUpstreamServices(async ({ accounts, upstreams }) => {
    const accountId = (await accounts.require(account)).id;
    if (secret !== undefined) putSecret(body, (await upstreams.get(accountId, id)).kind, secret, source);
    return upstreams.update(accountId, id, checkUpdate(source, body));
  }, patchOverHttp(account, id)).catch(told(account, id, source));
  out.result(present(view), () => `upstream ${view.id} (${view.name}) updated\n${TAKES_EFFECT}`);
}

async function setEnabled(args: string[], out: Output, enabled: boolean): Promise<void> {
  const { account, id } = accountAndId(enabled ? 'enable' : 'disable', args);
  const view = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.update((await accounts.require(account)).id, id, { enabled }),
    patchOverHttp(account, id),
  ).catch(told(account, id));
  out.result(present(view), () => `upstream ${view.id} (${view.name}) ${enabled ? 'enabled' : 'disabled: the routes pass it by'}\n${TAKES_EFFECT}`);
}

async function remove(args: string[], out: Output): Promise<void> {
  const { account, id } = accountAndId('delete', args);
  await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.delete((await accounts.require(account)).id, id),
    (api) => `curl -s -X DELETE '${api}/upstreams/${id}' -H "Authorization: Bearer $KEY"   # a key of account ${account} that holds upstreams:write`,
  ).catch(told(account, id));
  out.result({ deleted: id }, () => `upstream ${id} deleted`);
}

/** --account and one upstream id, for the actions that take nothing else. */
function accountAndId(action: string, args: string[]): { account: string; id: string } {
  const { values, positionals } = parseFlags(args, { account: { type: 'string' } }, USAGE, true);
  return { id: oneId(action, values.account, positionals), account: values.account! };
}

function oneId(action: string, account: string | undefined, positionals: string[]): string {
  if (!account || positionals.length !== 1) throw new CliError(`upstreams ${action} needs --account and one upstream id\n${USAGE}`);
  const id = positionals[0]!;
  if (!isUuid(id)) throw new CliError(`"${id}" is not an upstream id (a UUID): sms-gateway upstreams list --account ${account} shows them`);
  return id.toLowerCase();
}

/** The settings object given inline or in a file; an inline one may not carry the secret. */
async function settingsFrom(values: { settings?: string; 'settings-file'?: string; 'secret-stdin'?: boolean }): Promise<{ body: Posted; source: string }> {
  if (values.settings !== undefined && values['settings-file'] !== undefined) throw new CliError('give the settings once: --settings or --settings-file, not both');
  if (values['settings-file'] === '-' && values['secret-stdin']) throw new CliError('stdin can give the settings or the secret, not both: put the secret in the settings, or use --secret-file');
  const source = values.settings !== undefined ? '--settings' : `--settings-file ${values['settings-file']}`;
  const raw = values.settings ?? (await readInput('--settings-file', values['settings-file']!));
  const body = parseJson(source, raw);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new CliError(`${source} refused: the settings must be a JSON object`);
  const inArgv = values.settings !== undefined ? SECRET_FIELDS.find((field) => field in body) : undefined;
  if (inArgv) throw new CliError(`--settings may not carry ${inArgv}: the process list shows it to every user; give it with --secret-file or --secret-stdin`);
  return { body: body as Posted, source };
}

/** A secret given apart from the settings, and the flag (with its file) that gave it, for its refusals. */
interface GivenSecret {
  secret: string;
  source: string;
}

/** The secret from --secret-file or --secret-stdin (the first line), if either is given. */
async function secretFrom(values: { 'secret-file'?: string; 'secret-stdin'?: boolean }): Promise<GivenSecret | undefined> {
  if (values['secret-file'] !== undefined && values['secret-stdin']) throw new CliError('give the secret once: --secret-file or --secret-stdin, not both');
  let secret: string;
  let source: string;
  if (values['secret-file'] !== undefined) [secret, source] = [firstLineOfFile('--secret-file', values['secret-file']), `--secret-file ${values['secret-file']}`];
  else if (values['secret-stdin']) [secret, source] = [(await text(process.stdin)).split(/\r?\n/, 1)[0] ?? '', '--secret-stdin'];
  else return undefined;
  if (secret === '') throw new CliError(`${source}: the secret is empty (its first line is used)`);
  return { secret, source };
}

/**
 * Puts the secret in the body as its kind's field, checked alone first: a secret the API would
 * refuse (too long) is told as a problem of the flag that gave it, not of the settings.
 */
function putSecret(body: Posted, kind: UpstreamKind, given: GivenSecret, settingsSource: string): void {
  const field = secretField(kind);
  if (body[field] !== undefined) throw new CliError(`${settingsSource} carries ${field} and a secret was given as well: give it once`);
  checkUpdate(given.source, { [field]: given.secret });
  body[field] = given.secret;
}

function isKind(value: unknown): value is UpstreamKind {
  return value === 'smpp' || value === 'twilio';
}

/** The service's refusals in a command's words; bad input names its fields as the API does. */
function told(account: string, id: string | undefined, source = 'the upstream'): (error: unknown) => never {
  return (error) => {
    if (error instanceof AppError) {
      if (error.code === 'upstream_not_found') throw new CliError(`account ${account} has no upstream ${id}`, 1);
      if (error.code === 'upstream_in_routes') {
        throw new CliError(`the routes of account ${account} name upstream ${id}: take it out of them first (sms-gateway routes set --account ${account} --file FILE, or routes clear)`, 1);
      }
      if (error.code === 'upstream_name_taken') throw new CliError(`account ${account} already has an upstream of this name`, 1);
    }
    throw refusal(source, error);
  };
}

function patchOverHttp(account: string, id: string): (api: string) => string {
  return (api) => `curl -s -X PATCH '${api}/upstreams/${id}' -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data @FILE   # a key of account ${account} that holds upstreams:write`;
}

/** The API's view less the link: a command holds none, and the gateways each hold their own. */
function present(view: View): Omit<View, 'link'> {
  const { link: _link, ...rest } = view;
  return rest;
}

const NOT_SETTINGS = new Set(['id', 'kind', 'name', 'enabled', 'price_per_segment', 'prefix_prices', 'monthly_budget', 'month', 'link', 'created_at', 'updated_at']);

function describe(view: View): string {
  const settings = Object.entries(view)
    .filter(([field]) => !NOT_SETTINGS.has(field))
    .map(([field, value]) => ({ SETTING: field, VALUE: value === null ? '-' : String(value) }));
  const prices = view.prefix_prices.map(({ prefix, price }) => `${prefix} ${price}`).join(', ');
  return [
    `upstream ${view.id}: ${view.name} (${view.kind}, ${view.enabled ? 'enabled' : 'disabled'})`,
    '',
    table(settings),
    '',
    `price per segment  ${view.price_per_segment ?? '-'}${prices ? ` (${prices})` : ''}`,
    `monthly budget     ${view.monthly_budget ?? '-'}`,
    `this month         ${view.month.month}: ${view.month.segments} segment${view.month.segments === 1 ? '' : 's'}, spent ${spentText(view)}`,
    `created            ${view.created_at}, updated ${view.updated_at}`,
  ].join('\n');
}

function spentText(view: Pick<View, 'month' | 'monthly_budget'>): string {
  return view.monthly_budget === null ? String(view.month.spent) : `${view.month.spent} of ${view.monthly_budget}`;
}
