// `sms-gateway webhooks create|list|delete`: manage webhooks without the HTTP API.
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../modules/webhooks/event-contract.ts';
import { presentWebhook } from '../../modules/webhooks/registration/presenter.ts';
import { isUuid } from '../../common/object-id.ts';
import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { withAccountServicesToldToTheCluster } from '../cluster-notice.ts';
import { curlThroughGateway } from '../through-gateway.ts';
import { parseFlags, withActions } from '../flags.ts';

export const USAGE = `usage:
  sms-gateway webhooks create --account NAME --url URL --events a,b|all [--description TEXT] [--json]
  sms-gateway webhooks list --account NAME [--json]
  sms-gateway webhooks delete --account NAME ID [--json]
events: ${WEBHOOK_EVENTS.join(', ')}`;

export const webhooksCommand = withActions({ create, list, delete: remove }, USAGE);

async function create(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } }, USAGE);
  if (!values.account || !values.url || !values.events) throw new CliError(`webhooks create needs --account, --url and --events\n${USAGE}`);
  const events = parseEvents(values.events);
  const { account, url, description } = values as { account: string; url: string; description?: string };
  // Told to the running gateways over Redis when there is one: a node that had found no webhook
  // for the account's device events records them from now on, not when its cache runs out (5 s).
  const { webhook, secret } = await withAccountServicesToldToTheCluster(
    async (services) => {
      const owner = await services.accounts.require(account);
      return services.webhooks.create(owner.id, { url, events, description });
    },
    (api) => curlThroughGateway('POST', `${api}/webhooks`, 'webhooks:write', account, { url, events, ...(description === undefined ? {} : { description }) }),
  );
  out.result({ webhook: presentWebhook(webhook), secret }, () =>
    [
      `webhook ${webhook.id} created for ${webhook.url}`,
      `  events: ${webhook.events.join(', ')}`,
      `  signing secret (shown once): ${secret}`,
      '  use the webhook id as callback_id to route one SMS\'s events to it alone',
    ].join('\n'),
  );
}

async function list(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' } }, USAGE);
  if (!values.account) throw new CliError(`webhooks list needs --account\n${USAGE}`);
  const account = values.account;
  const rows = await withAccountServices(
    async (services) => {
      const owner = await services.accounts.require(account);
      return services.webhooks.list(owner.id, 1000);
    },
    (api) => curlThroughGateway('GET', `${api}/webhooks`, 'webhooks:read', account),
  );
  const data = rows.map(presentWebhook);
  out.rows(data, (webhook) => ({
    ID: webhook.id,
    URL: webhook.url,
    EVENTS: webhook.events.join(','),
    STATE: webhook.enabled ? 'enabled' : `disabled (${webhook.disabled_reason ?? ''})`,
  }));
}

async function remove(args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseFlags(args, { account: { type: 'string' } }, USAGE, true);
  if (!values.account || positionals.length !== 1) throw new CliError(`webhooks delete needs --account and one webhook id\n${USAGE}`);
  const id = positionals[0]!;
  if (!isUuid(id)) throw new CliError(`"${id}" is not a webhook id (a UUID)`);
  const account = values.account;
  await withAccountServicesToldToTheCluster(
    async (services) => {
      const owner = await services.accounts.require(account);
      await services.webhooks.delete(owner.id, id);
    },
    (api) => curlThroughGateway('DELETE', `${api}/webhooks/${id}`, 'webhooks:write', account),
  );
  out.result({ deleted: id }, () => `webhook ${id} deleted`);
}

function parseEvents(raw: string): WebhookEvent[] {
  if (raw.trim() === 'all') return [...WEBHOOK_EVENTS];
  const names = raw.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(WEBHOOK_EVENTS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new CliError(`unknown event(s): ${unknown.join(', ') || '(none given)'}\nevents: ${WEBHOOK_EVENTS.join(', ')}`);
  return names as WebhookEvent[];
}
