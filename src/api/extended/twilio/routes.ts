// Extended API v1: Twilio credentials, managed by a key holding keys:manage (they are keys too).
// The auth token is answered once, at creation and at rotation; lists never show it.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentCredential } from '../../../modules/twilio/presenter.ts';
import { CreateCredentialBody, CredentialList, CredentialParams, CredentialView, CredentialWithToken } from '../../../modules/twilio/schema.ts';
import type { TwilioService } from '../../../modules/twilio/service.ts';

export function twilioCredentialRoutes(twilio: TwilioService) {
  const credential = resourceRoutes({
    tag: 'Twilio credentials',
    read: 'keys:manage',
    write: 'keys:manage',
    params: CredentialParams,
    missing: ['twilio_credential_not_found'],
    one: { description: 'the credential', schema: CredentialView },
    present: presentCredential,
  });
  return [
    credential.route({
      method: 'post',
      path: '/twilio/credentials',
      operationId: 'createTwilioCredential',
      summary: 'Create a Twilio credential (AccountSid and auth token) for the Twilio-compatible API; answers the token once',
      description: 'Twilio\'s helper libraries authenticate with the AccountSid and auth token under /2010-04-01/Accounts/{AccountSid}/ (docs/twilio.md). The token also signs StatusCallback and sms_url requests (X-Twilio-Signature).',
      body: CreateCredentialBody,
      responses: { 201: { description: 'the credential, with its auth token shown this once', schema: CredentialWithToken } },
      errors: ['invalid_webhook_url', 'device_not_found'],
      async handle({ auth, body }) {
        const { credential, authToken } = await twilio.create(auth.accountId, { friendlyName: body.friendly_name, smsUrl: body.sms_url, deviceIds: body.device_ids });
        return { status: 201, body: { ...presentCredential(credential), auth_token: authToken } };
      },
    }),
    credential.listAll({
      path: '/twilio/credentials',
      operationId: 'listTwilioCredentials',
      summary: 'List the account\'s Twilio credentials, newest first (never their tokens)',
      answer: { description: 'the credentials', schema: CredentialList },
      list: ({ auth }) => twilio.list(auth.accountId),
    }),
    credential.routeOnOne({
      method: 'post',
      path: '/twilio/credentials/:sid/rotate',
      operationId: 'rotateTwilioCredential',
      summary: 'Give a Twilio credential a new auth token; the old one stops working at once',
      responses: { 200: { description: 'the credential, with its new auth token shown this once', schema: CredentialWithToken } },
      async handle({ auth, params }) {
        const { credential, authToken } = await twilio.rotate(auth.accountId, params.sid);
        return { status: 200, body: { ...presentCredential(credential), auth_token: authToken } };
      },
    }),
    credential.remove({
      path: '/twilio/credentials/:sid',
      operationId: 'deleteTwilioCredential',
      summary: 'Delete a Twilio credential and its callbacks',
      remove: ({ auth, params }) => twilio.delete(auth.accountId, params.sid),
    }),
  ];
}
