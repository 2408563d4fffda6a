// Extended API v1: API keys, managed by a key holding keys:manage. The whole key is
// answered once, at creation; lists and reads show its prefix only.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentKey } from '../../../modules/api-keys/presenter.ts';
import { CreateKeyBody, KeyIdParams, KeyList, KeyListQuery, KeyView, KeyWithSecret } from '../../../modules/api-keys/schema.ts';
import type { ApiKeyService } from '../../../modules/api-keys/service.ts';

export function apiKeyRoutes(apiKeys: ApiKeyService) {
  const key = resourceRoutes({
    tag: 'API keys',
    read: 'keys:manage',
    write: 'keys:manage',
    params: KeyIdParams,
    missing: ['invalid_id', 'key_not_found'],
    one: { description: 'the key', schema: KeyView },
    present: presentKey,
  });
  return [
    key.route({
      method: 'post',
      path: '/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; answers the key once',
      description: 'The new key may hold only permissions the calling key holds itself; asking for more is 403 naming the ones it lacks.',
      body: CreateKeyBody,
      responses: { 201: { description: 'the key, shown this once, and its description', schema: KeyWithSecret } },
      async handle({ auth, body }) {
        const { key, row } = await apiKeys.issue(auth, body.permissions, body.name ?? '');
        return { status: 201, body: { key, ...presentKey(row) } };
      },
    }),
    key.list({
      path: '/keys',
      operationId: 'listApiKeys',
      summary: 'List the account\'s API keys, newest first, revoked ones included unless revoked=false',
      query: KeyListQuery,
      answer: { description: 'a page of keys, without their secrets', schema: KeyList },
      list: ({ auth, query }, cursor) => apiKeys.page(auth.accountId, { limit: query.limit, cursor, revoked: query.revoked }),
    }),
    key.get({
      path: '/keys/:id',
      operationId: 'getApiKey',
      summary: 'Read one API key (without its secret)',
      read: ({ auth, params }) => apiKeys.get(auth.accountId, params.id),
    }),
    key.act({
      method: 'delete',
      path: '/keys/:id',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key; revoking it again answers it unchanged',
      description: 'The key is refused (401) at once by the gateway that revoked it, and within 5 seconds by other gateways on the same database. A key may revoke itself.',
      answer: 'the key, with revoked_at',
      act: ({ auth, params }) => apiKeys.revokeInAccount(auth.accountId, params.id),
    }),
  ];
}
