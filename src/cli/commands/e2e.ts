// `sms-gateway e2e encrypt|decrypt`: the end-to-end ciphertext a client sends to POST
// /api/ext/v1/sms/encrypted, and the plaintext of what the gateway shows (docs/encryption.md).
// It needs no gateway: the passphrase never leaves this machine.
import { decrypt, DecryptionError, encrypt } from '../../common/end-to-end.ts';
import { parseFlags, withActions } from '../flags.ts';
import { CliError, type Output } from '../output.ts';
import { passphraseFrom } from '../passphrase.ts';

export const USAGE = `usage: sms-gateway e2e encrypt TEXT [--passphrase-file PATH] [--json]
       sms-gateway e2e decrypt CIPHERTEXT [--passphrase-file PATH] [--json]
Encrypts a recipient or a text for POST /api/ext/v1/sms/encrypted (AES-256-GCM, PBKDF2-SHA256,
the format of docs/encryption.md), or decrypts what GET /sms or GET /incoming shows. Works
offline: nothing is sent anywhere.
  --passphrase-file PATH  the passphrase is this file's first line
  --passphrase P          the passphrase itself; visible to other users in the process list, so
                          prefer SMS_GATEWAY_PASSPHRASE or --passphrase-file
  --json                  print {"ciphertext": ...} or {"plaintext": ...} instead of the value alone
environment: SMS_GATEWAY_PASSPHRASE (the passphrase, when neither flag is given)`;

const FLAGS = { passphrase: { type: 'string' }, 'passphrase-file': { type: 'string' } } as const;

function read(args: string[]): { value: string; passphrase: string } {
  const { values, positionals } = parseFlags(args, FLAGS, USAGE, true);
  if (positionals.length !== 1) throw new CliError(`give exactly one value to work on\n${USAGE}`);
  const passphrase = passphraseFrom(values.passphrase, values['passphrase-file']);
  if (passphrase === undefined) throw new CliError('a passphrase is needed: set SMS_GATEWAY_PASSPHRASE, or --passphrase-file PATH (or --passphrase P)');
  return { value: positionals[0]!, passphrase };
}

export const e2eCommand = withActions(
  {
    async encrypt(args: string[], out: Output) {
      const { value, passphrase } = read(args);
      const ciphertext = await encrypt(value, passphrase);
      out.result({ ciphertext }, () => ciphertext);
    },
    async decrypt(args: string[], out: Output) {
      const { value, passphrase } = read(args);
      try {
        const plaintext = await decrypt(value, passphrase);
        out.result({ plaintext }, () => plaintext);
      } catch (error) {
        if (error instanceof DecryptionError) throw new CliError(`cannot decrypt: ${error.message}`, 1);
        throw error;
      }
    },
  },
  USAGE,
);
