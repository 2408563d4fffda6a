// Extended API v1: SMS the gateway carries without reading them as text. They are SMS rows like
// any other (kind and is_encrypted tell them apart), created through the create-SMS use case, so
// pacing, failover, cancel, Idempotency-Key, listing, statuses and webhooks serve them alike.
// POST /sms keeps its body as it is: these fields belong to these routes only.
import type { groupRoutes } from '../../../http/resource-routes.ts';
import { SmsView } from '../../../modules/messages/schema.ts';
import { DataSmsBody, EncryptedSmsBody } from '../../../modules/messages/special-schema.ts';
import { DATA_MAX_BYTES } from '../../../modules/messages/special-payloads.ts';
import type { MessageRouteParts } from './routes.ts';
import { sendOneSms } from './send-one.ts';
import { sendOptionsOf, wayInOf } from './send-options.ts';

/** `sms`: the routes of an SMS, which fill in the tag and permission. */
export function specialSmsRoutes(parts: MessageRouteParts, sms: Pick<ReturnType<typeof groupRoutes>, 'route'>) {
  const { messages } = parts;
  return [
    sms.route({
      method: 'post',
      path: '/sms/encrypted',
      operationId: 'createEncryptedSms',
      idempotent: true,
      summary: 'Send an end-to-end encrypted SMS',
      description:
        'phone and message are ciphertext the client made with a passphrase only it and the account\'s phones know ' +
        '(AES-256-GCM, PBKDF2-SHA256; the format and a test vector are in docs/encryption.md). The gateway stores and ' +
        'forwards them as they are: it checks only that each is in the format (400 invalid_ciphertext otherwise), and ' +
        'cannot check the recipient as a number, count segments (null), or find the SMS by text or recipient in searches. ' +
        'The phone decrypts both before sending; a phone whose passphrase does not open them reports failed_send with ' +
        'reason decryption_failed. The SMS goes only to a device that holds a passphrase (its heartbeat\'s capabilities), and, with ' +
        'passphrase_fingerprint, only to one holding that passphrase; when no device of the account does, or the device named ' +
        'does not, it is refused at once (409 no_capable_device, device_not_capable). Devices that never said are taken to hold it. ' +
        'Otherwise as POST /sms: 201 with the SMS (is_encrypted true), Idempotency-Key, ' +
        'scheduling, device_id, no_store, cancel, statuses and webhooks.',
      body: EncryptedSmsBody,
      responses: { 201: { description: 'the SMS as stored (ciphertext), status pending', schema: SmsView } },
      errors: ['validation_failed', 'invalid_ciphertext', 'device_not_found', 'device_cannot_send', 'device_not_capable', 'no_capable_device', 'idempotency_key_reused', 'no_device_available', 'unknown_callback'],
      async handle({ auth, body, ctx }) {
        return sendOneSms(parts, { auth, ctx, body }, 'POST /api/ext/v1/sms/encrypted', () =>
          messages.prepare(auth.accountId, {
            ...sendOptionsOf(body),
            wayIn: wayInOf(auth),
            phone: body.phone,
            message: body.message,
            encrypted: true,
            passphraseFingerprint: body.passphrase_fingerprint,
          }),
        );
      },
    }),
    sms.route({
      method: 'post',
      path: '/sms/data',
      operationId: 'createDataSms',
      idempotent: true,
      summary: 'Send a data SMS: binary to an application port',
      description:
        `data is the payload in base64, 1-${DATA_MAX_BYTES} bytes (one SMS; 400 invalid_data otherwise); port the ` +
        'application port on the recipient\'s phone (1-65535). The phone sends it as an 8-bit SMS with 16-bit port ' +
        'addressing. Otherwise as POST /sms: 201 with the SMS (kind data, data, port, message empty), Idempotency-Key, ' +
        'scheduling, device_id, no_store, cancel, statuses and webhooks. A phone that cannot send data SMS reports ' +
        'failed_send with reason data_sms_unsupported; one that says so in its heartbeat is never handed one, and when no device ' +
        'of the account can send data SMS, or the device named cannot, the request is refused at once (409 no_capable_device, device_not_capable).',
      body: DataSmsBody,
      responses: { 201: { description: 'the data SMS, status pending', schema: SmsView } },
      errors: ['validation_failed', 'invalid_data', 'invalid_phone', 'device_not_found', 'device_cannot_send', 'device_not_capable', 'no_capable_device', 'idempotency_key_reused', 'no_device_available', 'unknown_callback'],
      async handle({ auth, body, ctx }) {
        return sendOneSms(parts, { auth, ctx, body }, 'POST /api/ext/v1/sms/data', () =>
          messages.prepare(auth.accountId, { ...sendOptionsOf(body), wayIn: wayInOf(auth), phone: body.phone, message: '', data: { base64: body.data, port: body.port } }),
        );
      },
    }),
  ];
}
