// Bodies of the SMS the gateway cannot read as text: end-to-end encrypted (POST /sms/encrypted)
// and data SMS (POST /sms/data). Each takes the fields of POST /sms that still make sense, and
// rejects any other, as POST /sms does.
import { Type } from '@sinclair/typebox';
import { CreateSmsBody } from './schema.ts';
import { FINGERPRINT_PATTERN } from '../../common/end-to-end.ts';
import { DATA_MAX_BYTES, ENCRYPTED_MESSAGE_MAX_CHARACTERS, ENCRYPTED_PHONE_MAX_CHARACTERS } from './special-payloads.ts';

const { phone: _phone, message: _message, ...sendOptions } = CreateSmsBody.properties;

const FORMAT = '$aes-256-gcm/pbkdf2-sha256$i=<iterations>$<salt>$<iv>$<ciphertext>';

// POST /api/ext/v1/sms/encrypted
export const EncryptedSmsBody = Type.Object(
  {
    phone: Type.String({
      minLength: 1,
      maxLength: ENCRYPTED_PHONE_MAX_CHARACTERS,
      description: `the recipient, encrypted by the client: ${FORMAT} (docs/encryption.md). The gateway cannot read or check it as a number`,
    }),
    message: Type.String({
      minLength: 1,
      maxLength: ENCRYPTED_MESSAGE_MAX_CHARACTERS,
      description: `the text (at most 170 characters before encryption), encrypted by the client: ${FORMAT}`,
    }),
    passphrase_fingerprint: Type.Optional(
      Type.String({
        pattern: FINGERPRINT_PATTERN,
        description:
          'the fingerprint of the passphrase phone and message were encrypted with (docs/encryption.md; passphraseFingerprint() in ' +
          'src/common/end-to-end.ts): only a device holding that passphrase is handed the SMS. Absent: any device holding a passphrase',
      }),
    ),
    ...sendOptions,
  },
  { additionalProperties: false },
);

// POST /api/ext/v1/sms/data
export const DataSmsBody = Type.Object(
  {
    phone: CreateSmsBody.properties.phone,
    data: Type.String({
      minLength: 1,
      // Bounds what is read; the payload's own limit (133 bytes) is checked with a clearer answer.
      maxLength: 1024,
      description: `the binary payload, standard base64 (padded): 1-${DATA_MAX_BYTES} bytes, one SMS`,
    }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: 'the application port on the recipient\'s phone (16-bit port addressing)' }),
    ...sendOptions,
  },
  { additionalProperties: false },
);
