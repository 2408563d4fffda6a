// `sms-gateway routes show|set|clear`: an account's routes (when its SMS go to its phones and when
// to one of its upstreams) without the HTTP API. set takes the body of PUT /api/ext/v1/routes,
// checked by the API's own schema and then by the service (each target "phones", a device group
// or an upstream).
import { isUuid } from '../../common/object-id.ts';
import { RoutesBody } from '../../modules/upstreams/schema.ts';
import type { RouteRule } from '../../modules/upstreams/types.ts';
import { parseFlags, withActions } from '../flags.ts';
import { bodyChecker, parseJson, readInput, refusal } from '../json-body.ts';
import { CliError, type Output } from '../output.ts';
import { TAKES_EFFECT, withUpstreamServices } from '../upstream-service.ts';

export const USAGE = `usage:
  sms-gateway routes show --account NAME [--json]
  sms-gateway routes set --account NAME --file FILE [--json]
  sms-gateway routes clear --account NAME [--json]
The file holds the body of PUT /api/ext/v1/routes (--file - reads it from stdin), e.g.
  {"routes": [{"target": "phones", "after_seconds": 60}, {"target": "<upstream id>"}]}
Each rule's target is "phones", "group:<name>" (the phones of a device group) or an upstream's id
(sms-gateway upstreams list shows them); it may have prefixes, categories, min_priority, and for
phones and group rules after_seconds and skip_when_offline; docs/routes.md tells every target and
condition.
set replaces every rule; clear removes them all, and the account's SMS all go to its phones again.
${TAKES_EFFECT}`;

export const routesCommand = withActions({ show, set, clear }, USAGE);

const checkRoutes = bodyChecker(RoutesBody);

async function show(args: string[], out: Output): Promise<void> {
  const account = accountOf('show', args);
  const { routes, names } = await withUpstreamServices(
    async ({ accounts, upstreams }) => {
      const accountId = (await accounts.require(account)).id;
      const [routes, views] = await Promise.all([upstreams.routes(accountId), upstreams.list(accountId)]);
      return { routes, names: new Map(views.map((view) => [view.id, view.name])) };
    },
    (api) => `curl -s '${api}/routes' -H "Authorization: Bearer $KEY"   # a key of account ${account} that holds upstreams:read`,
  );
  out.result(routes, () => (routes.routes.length === 0 ? `account ${account} has no routes: its SMS all go to its phones` : routes.routes.map((rule, index) => `${index + 1}. ${describe(rule, names)}`).join('\n')));
}

async function set(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, file: { type: 'string' } }, USAGE);
  if (!values.account || values.file === undefined) throw new CliError(`routes set needs --account and --file\n${USAGE}`);
  const account = values.account;
  const source = `--file ${values.file}`;
  const body = checkRoutes(source, parseJson(source, await readInput('--file', values.file)));
  const routes = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.setRoutes((await accounts.require(account)).id, body.routes),
    (api) => `curl -s -X PUT '${api}/routes' -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data @FILE   # a key of account ${account} that holds upstreams:write`,
  ).catch((error: unknown) => {
    throw refusal(source, error);
  });
  out.result(routes, () => `account ${account} has ${routes.routes.length} route rule${routes.routes.length === 1 ? '' : 's'} now\n${TAKES_EFFECT}`);
}

async function clear(args: string[], out: Output): Promise<void> {
  const account = accountOf('clear', args);
  const routes = await withUpstreamServices(
    async ({ accounts, upstreams }) => upstreams.setRoutes((await accounts.require(account)).id, []),
    (api) => `curl -s -X PUT '${api}/routes' -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"routes": []}'   # a key of account ${account} that holds upstreams:write`,
  );
  out.result(routes, () => `account ${account} has no routes now: its SMS all go to its phones\n${TAKES_EFFECT}`);
}

function accountOf(action: string, args: string[]): string {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  if (!values.account) throw new CliError(`routes ${action} needs --account\n${USAGE}`);
  return values.account;
}

/** One rule in words: its target (an upstream by its name as well) and its conditions. */
function describe(rule: RouteRule, names: Map<string, string>): string {
  // A target that is no upstream id ("phones", or another the routes may name) reads as it is written.
  const target = isUuid(rule.target) ? `upstream ${names.get(rule.target) ?? '(deleted)'} (${rule.target})` : rule.target;
  const conditions = [
    rule.prefixes ? `to ${rule.prefixes.join(', ')}` : undefined,
    rule.categories ? `category ${rule.categories.join(' or ')}` : undefined,
    rule.min_priority !== undefined ? `priority ${rule.min_priority} or more` : undefined,
    rule.after_seconds !== undefined ? `for ${rule.after_seconds} s` : undefined,
    rule.skip_when_offline === false ? 'even with no phone online' : undefined,
  ].filter(Boolean);
  return conditions.length ? `${target}: ${conditions.join(', ')}` : target;
}
