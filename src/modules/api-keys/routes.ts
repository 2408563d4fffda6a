// Extended API v1: API keys, managed by a key holding keys:manage. The whole key is
// answered once, at creation; lists and reads show its prefix only.
import { defineRoute } from '../../http/route.ts';
import { listPageRoute, readOneRoute } from '../../http/resource-routes.ts';
import { presentKey } from './presenter.ts';
import { CreateKeyBody, KeyIdParams, KeyList, KeyListQuery, KeyView, KeyWithSecret } from './schema.ts';
import type { ApiKeyService } from './service.ts';

const TAG = 'API keys';

export function apiKeyRoutes(apiKeys: ApiKeyService) {
  return [
    defineRoute({
      method: 'post',
      path: '/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; answers the key once',
      description: 'The new key may hold only permissions the calling key holds itself; asking for more is 403 naming the ones it lacks.',
      tag: TAG,
      permission: 'keys:manage',
      body: CreateKeyBody,
      responses: { 201: { description: 'the key, shown this once, and its description', schema: KeyWithSecret } },
      async handle({ auth, body }) {
        const { key, row } = await apiKeys.issue(auth, body.permissions, body.name ?? '');
        return { status: 201, body: { key, ...presentKey(row) } };
      },
    }),
    listPageRoute({
      path: '/keys',
      operationId: 'listApiKeys',
      summary: 'List the account\'s API keys, newest first, revoked ones included unless revoked=false',
      tag: TAG,
      permission: 'keys:manage',
      query: KeyListQuery,
      answer: { description: 'a page of keys, without their secrets', schema: KeyList },
      list: ({ auth, query }, cursor) => apiKeys.page(auth.accountId, { limit: query.limit, cursor, revoked: query.revoked }),
      present: presentKey,
    }),
    readOneRoute({
      path: '/keys/:id',
      operationId: 'getApiKey',
      summary: 'Read one API key (without its secret)',
      tag: TAG,
      permission: 'keys:manage',
      params: KeyIdParams,
      answer: { description: 'the key', schema: KeyView },
      errors: ['invalid_id', 'key_not_found'],
      read: async ({ auth, params }) => presentKey(await apiKeys.get(auth.accountId, params.id)),
    }),
    defineRoute({
      method: 'delete',
      path: '/keys/:id',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key; revoking it again answers it unchanged',
      description: 'The key is refused (401) at once by the gateway that revoked it, and within 5 seconds by other gateways on the same database. A key may revoke itself.',
      tag: TAG,
      permission: 'keys:manage',
      params: KeyIdParams,
      responses: { 200: { description: 'the key, with revoked_at', schema: KeyView } },
      errors: ['invalid_id', 'key_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentKey(await apiKeys.revokeInAccount(auth.accountId, params.id)) };
      },
    }),
  ];
}
