// Extended API v1: an account's upstream providers (SMS leave through them when its routes say
// its phones cannot send them) and its routes.
import { resourceRoutes, settingsRoutes } from '../../../http/resource-routes.ts';
import { CreateUpstreamBody, RoutesBody, RoutesView, UpdateUpstreamBody, UpstreamIdParams, UpstreamList, UpstreamView } from '../../../modules/upstreams/schema.ts';
import type { UpstreamService } from '../../../modules/upstreams/service.ts';

const ROUTES_DESCRIPTION =
  'An ordered list of rules. Each rule names a target, "phones" (the account\'s phones), "group:<name>" (the phones of a device group) ' +
  'or an upstream\'s id, and may apply only to ' +
  'destinations starting with one of prefixes, to SMS of at least min_priority, or to SMS sent with one of categories. An SMS goes through the rules that apply to it, in ' +
  'order: a phones rule keeps it for the phones for after_seconds (no limit when absent), or moves it on at once when no phone of the ' +
  'account is online (unless skip_when_offline is false); a group rule does the same for the phones of its group only; an upstream rule submits it there, and moves it on when the upstream is ' +
  'disabled, over its monthly budget, down, or refuses it (after 5 answers of "try later"). After the last rule it fails (failed_send, ' +
  'upstream_refused), unless that rule is the phones\'. An SMS no rule applies to goes to the phones. A phone that has acknowledged an SMS ' +
  'keeps it: an SMS is never sent by two routes. Only plain text SMS without a named device are routed. An empty list sends every SMS to ' +
  'the phones again.';

export function upstreamRoutes(upstreams: UpstreamService) {
  const upstream = resourceRoutes({
    tag: 'Upstreams',
    read: 'upstreams:read',
    write: 'upstreams:write',
    params: UpstreamIdParams,
    missing: ['invalid_id', 'upstream_not_found'],
    one: { description: 'the upstream, its figures this month and its link on the node that answers', schema: UpstreamView },
    present: (view: Awaited<ReturnType<UpstreamService['get']>>) => view,
  });
  const routes = settingsRoutes({
    tag: 'Upstreams',
    read: 'upstreams:read',
    write: 'upstreams:write',
    one: { description: "the account's routes", schema: RoutesView },
    present: (view: Awaited<ReturnType<UpstreamService['routes']>>) => view,
  });
  return [
    upstream.create({
      path: '/upstreams',
      operationId: 'createUpstream',
      summary: 'Add an upstream provider (an SMSC over SMPP, or a service speaking Twilio\'s Messages API)',
      description:
        'kind smpp needs host, port, system_id and password; kind twilio needs base_url, account_sid, auth_token and from or ' +
        'messaging_service_sid. The secret is kept encrypted and never shown. Each gateway node connects (binds) to it once it is made ' +
        'and enabled; link says how that went on the node that answers. A provider\'s address on a private network is refused unless ' +
        'WEBHOOK_ALLOWED_HOSTS lets it through.',
      body: CreateUpstreamBody,
      errors: ['validation_failed', 'upstream_name_taken'],
      create: ({ auth, body }) => upstreams.create(auth.accountId, body),
    }),
    upstream.listAll({
      path: '/upstreams',
      operationId: 'listUpstreams',
      summary: "List the account's upstreams, oldest first",
      answer: { description: 'every upstream of the account', schema: UpstreamList },
      list: ({ auth }) => upstreams.list(auth.accountId),
    }),
    upstream.get({
      path: '/upstreams/:id',
      operationId: 'getUpstream',
      summary: 'Read one upstream, with its figures this month and its link',
      read: ({ auth, params }) => upstreams.get(auth.accountId, params.id),
    }),
    upstream.update({
      path: '/upstreams/:id',
      operationId: 'updateUpstream',
      summary: 'Change an upstream; its link connects again with the new settings',
      body: UpdateUpstreamBody,
      errors: ['validation_failed', 'upstream_name_taken'],
      update: ({ auth, params, body }) => upstreams.update(auth.accountId, params.id, body),
    }),
    upstream.remove({
      path: '/upstreams/:id',
      operationId: 'deleteUpstream',
      summary: 'Remove an upstream the routes do not name; its link closes',
      errors: ['upstream_in_routes'],
      remove: ({ auth, params }) => upstreams.delete(auth.accountId, params.id),
    }),
    routes.get({
      path: '/routes',
      operationId: 'getRoutes',
      summary: "Read the account's routes",
      description: ROUTES_DESCRIPTION,
      read: ({ auth }) => upstreams.routes(auth.accountId),
    }),
    routes.update({
      method: 'put',
      path: '/routes',
      operationId: 'setRoutes',
      summary: "Replace the account's routes",
      description: ROUTES_DESCRIPTION,
      body: RoutesBody,
      errors: ['validation_failed'],
      update: ({ auth, body }) => upstreams.setRoutes(auth.accountId, body.routes),
    }),
  ];
}
