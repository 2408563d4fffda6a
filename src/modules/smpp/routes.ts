// Extended API v1: SMPP credentials, managed by a key holding keys:manage (they are keys of
// another kind). The password is answered once, at creation; lists never show it.
import { defineRoute } from '../../http/route.ts';
import { listAllRoute } from '../../http/resource-routes.ts';
import { presentCredential } from './presenter.ts';
import { CreateCredentialBody, CredentialIdParams, CredentialList, CredentialView, CredentialWithPassword } from './schema.ts';
import type { SmppService } from './service.ts';

const TAG = 'SMPP';

export function smppRoutes(smpp: SmppService) {
  return [
    defineRoute({
      method: 'post',
      path: '/smpp/credentials',
      operationId: 'createSmppCredential',
      summary: 'Create an SMPP credential; answers its password once',
      description:
        'An ESME binds with system_id and password (docs/smpp.md). The password has 8 characters, SMPP\'s limit; only its hash is stored.',
      tag: TAG,
      permission: 'keys:manage',
      body: CreateCredentialBody,
      responses: { 201: { description: 'the credential and its password, shown this once', schema: CredentialWithPassword } },
      errors: ['validation_failed', 'device_not_found', 'smpp_system_id_taken'],
      async handle({ auth, body }) {
        const { credential, password } = await smpp.issue(auth.accountId, {
          systemId: body.system_id,
          name: body.name,
          deviceIds: body.device_ids,
          throughputPerSecond: body.throughput_per_second,
          windowSize: body.window_size,
        });
        return { status: 201, body: { ...presentCredential(credential), password } };
      },
    }),
    listAllRoute({
      path: '/smpp/credentials',
      operationId: 'listSmppCredentials',
      summary: 'List the account\'s SMPP credentials, newest first, revoked ones included (never a password)',
      tag: TAG,
      permission: 'keys:manage',
      answer: { description: 'the credentials', schema: CredentialList },
      list: ({ auth }) => smpp.list(auth.accountId),
      present: presentCredential,
    }),
    defineRoute({
      method: 'delete',
      path: '/smpp/credentials/:id',
      operationId: 'revokeSmppCredential',
      summary: 'Revoke an SMPP credential and unbind its sessions at once; revoking it again answers it unchanged',
      tag: TAG,
      permission: 'keys:manage',
      params: CredentialIdParams,
      responses: { 200: { description: 'the credential, with revoked_at', schema: CredentialView } },
      errors: ['invalid_id', 'smpp_credential_not_found'],
      async handle({ auth, params }) {
        return { status: 200, body: presentCredential(await smpp.revoke(auth.accountId, params.id)) };
      },
    }),
  ];
}
