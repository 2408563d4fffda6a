// Extended API v1: SMPP credentials, managed by a key holding keys:manage (they are keys of
// another kind). The password is answered once, at creation; lists never show it.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentCredential } from '../../../modules/smpp/presenter.ts';
import { CreateCredentialBody, CredentialIdParams, CredentialList, CredentialView, CredentialWithPassword, UpdateCredentialBody } from '../../../modules/smpp/schema.ts';
import type { SmppService } from '../../../modules/smpp/service.ts';

export function smppRoutes(smpp: SmppService) {
  const credential = resourceRoutes({
    tag: 'SMPP',
    read: 'keys:manage',
    write: 'keys:manage',
    params: CredentialIdParams,
    missing: ['invalid_id', 'smpp_credential_not_found'],
    one: { description: 'the credential', schema: CredentialView },
    present: presentCredential,
  });
  return [
    credential.route({
      method: 'post',
      path: '/smpp/credentials',
      operationId: 'createSmppCredential',
      summary: 'Create an SMPP credential; answers its password once',
      description:
        'An ESME binds with system_id and password (docs/smpp.md). The password has 8 characters, SMPP\'s limit; only its hash is stored.',
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
          defaultDataCoding: body.default_data_coding,
        });
        return { status: 201, body: { ...presentCredential(credential), password } };
      },
    }),
    credential.listAll({
      path: '/smpp/credentials',
      operationId: 'listSmppCredentials',
      summary: 'List the account\'s SMPP credentials, newest first, revoked ones included (never a password)',
      answer: { description: 'the credentials', schema: CredentialList },
      list: ({ auth }) => smpp.list(auth.accountId),
    }),
    credential.update({
      path: '/smpp/credentials/:id',
      operationId: 'updateSmppCredential',
      summary: 'Change an SMPP credential\'s name or default_data_coding; a session bound now keeps what it bound with until it binds again',
      body: UpdateCredentialBody,
      answer: 'the credential as changed',
      errors: ['validation_failed'],
      update: ({ auth, params, body }) => smpp.update(auth.accountId, params.id, { name: body.name, defaultDataCoding: body.default_data_coding }),
    }),
    credential.act({
      method: 'delete',
      path: '/smpp/credentials/:id',
      operationId: 'revokeSmppCredential',
      summary: 'Revoke an SMPP credential and unbind its sessions at once; revoking it again answers it unchanged',
      answer: 'the credential, with revoked_at',
      act: ({ auth, params }) => smpp.revoke(auth.accountId, params.id),
    }),
  ];
}
