// Every process that seals or opens secrets (each gateway node, each `sms-gateway` command) must
// hold the same key, or what one seals the others cannot open: a command run with another
// DATA_DIR used to make a key file of its own and seal a Twilio token or a webhook secret that
// the gateway then failed on for every request or every retry. The database keeps a check value
// of the key (an HMAC, never the key) from the first process that starts on it; every later one
// compares its own and refuses to start, naming DATA_DIR and WEBHOOK_SECRET_KEY, on a mismatch.
import { ConfigError } from '../../../config.ts';
import type { Database } from '../../../storage/database.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * The check value of a database shared on purpose by processes that each hold a key of their own
 * and never open each other's secrets (a test suite's database): nothing is checked on it. The
 * gateway never writes it; whoever set such a database up did.
 */
export const ANY_KEY = 'any key';

/** Records the key's check value on a database without one; refuses a key other than the recorded one. */
export async function verifySecretKey(db: Database, box: SecretBox): Promise<void> {
  // A throwaway key (DATA_DIR=:memory:) seals nothing that outlives its process: nothing to check.
  if (box.source.kind === 'throwaway') return;
  const ours = box.checkValue();
  let recorded = await recordedCheck(db);
  if (recorded === undefined) {
    // A database from before the check may already hold secrets: the key must open them.
    const sealed = await someSealedSecret(db);
    if (sealed !== undefined && !box.opens(sealed)) throw mismatch(box);
    await db('secret_key_check').insert({ id: 1, check_value: ours }).onConflict('id').ignore();
    // Another node may have recorded its own in the meantime: the recorded one decides.
    recorded = await recordedCheck(db);
  }
  if (recorded !== ours && recorded !== ANY_KEY) throw mismatch(box);
  box.saveKeyFile();
}

async function recordedCheck(db: Database): Promise<string | undefined> {
  const row = await db('secret_key_check').where({ id: 1 }).first<{ check_value: string } | undefined>('check_value');
  return row?.check_value;
}

async function someSealedSecret(db: Database): Promise<string | undefined> {
  const webhook = await db('webhooks').first<{ sealed: string } | undefined>({ sealed: 'secret_encrypted' });
  if (webhook) return webhook.sealed;
  const credential = await db('twilio_credentials').first<{ sealed: string } | undefined>({ sealed: 'auth_token_encrypted' });
  return credential?.sealed;
}

function mismatch(box: SecretBox): ConfigError {
  const held =
    box.source.kind === 'file'
      ? box.source.written
        ? `this process read its key from ${box.source.file} (WEBHOOK_SECRET_KEY is not set, so the key file in DATA_DIR is used)`
        : `there is no key file in this DATA_DIR (${box.source.file}: none was written) and WEBHOOK_SECRET_KEY is not set`
      : 'this process took its key from WEBHOOK_SECRET_KEY';
  return new ConfigError([
    `the key that encrypts webhook and Twilio secrets is not the one this database's secrets were sealed with: ${held}. ` +
      'Run every gateway node and every sms-gateway command against this database with the same WEBHOOK_SECRET_KEY, ' +
      'or with the DATA_DIR whose webhook-secret.key the gateway uses (a command with another DATA_DIR would seal secrets the gateway cannot open)',
  ]);
}
