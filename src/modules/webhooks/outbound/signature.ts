// Signing follows the Standard Webhooks scheme, so receivers can verify with existing libraries:
//   webhook-id: <delivery id>   webhook-timestamp: <Unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> (space-separated, one per live secret)
// Secrets look like "whsec_<base64>"; the HMAC key is the base64-decoded part.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** HMAC keys by secret: a webhook signs every delivery with the same one, decoded once. */
const keys = new Map<string, KeyObject>();

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size > 10_000) keys.clear();
    keys.set(secret, (key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))));
  }
  return key;
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
