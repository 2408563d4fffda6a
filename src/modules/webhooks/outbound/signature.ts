// Signing follows the Standard Webhooks scheme, so receivers can verify with existing libraries:
//   webhook-id: <delivery id>   webhook-timestamp: <Unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> (space-separated, one per live secret)
// Secrets look like "whsec_<base64>"; the HMAC key is the base64-decoded part.
import { createHmac, randomBytes } from 'node:crypto';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
