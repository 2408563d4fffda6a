// The Extended API's view of Twilio credentials (managed with keys:manage, like API keys).
import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time' });
const AccountSid = Type.String({ pattern: '^AC[0-9a-f]{32}$', description: '"AC" and 32 hex digits' });

export const CreateCredentialBody = Type.Object(
  {
    friendly_name: Type.Optional(Type.String({ maxLength: 100, description: 'a label for people' })),
    sms_url: Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        pattern: '^https?://',
        description: 'where incoming SMS are POSTed as Twilio posts them (form-encoded, X-Twilio-Signature); a TwiML <Message> answer is sent back through the phone that received the SMS',
      }),
    ),
    device_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: 100,
        uniqueItems: true,
        description: 'the devices whose incoming SMS sms_url hears; omitted or empty: every device of the account',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CredentialView = Type.Object({
  account_sid: AccountSid,
  friendly_name: Type.String(),
  sms_url: Type.Union([Type.String(), Type.Null()], { description: 'where incoming SMS are POSTed; null when the credential has none' }),
  device_ids: Type.Array(Type.String(), { description: 'the devices whose incoming SMS sms_url hears; empty: every device of the account' }),
  auth_token_unreadable: Type.Boolean({
    description:
      'true when the gateway found it cannot decrypt this credential\'s auth token (stored under another WEBHOOK_SECRET_KEY or DATA_DIR): its requests are answered 401 (code 20003) until the token is rotated',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CredentialWithToken = Type.Object({
  ...CredentialView.properties,
  auth_token: Type.String({ description: '32 hex digits; shown this once (it is stored encrypted, to sign callbacks)' }),
});

export const CredentialList = Type.Object({ data: Type.Array(CredentialView) });

export const CredentialParams = Type.Object({ sid: AccountSid });
