// The pin a pairing URL carries with TLS (docs/pairing.md): base64url of the SHA-256 of the
// SubjectPublicKeyInfo of the last certificate in TLS_CERT, the top of the chain the gateway
// serves. For a self-signed certificate that is its own key; for a certificate with its CA's
// certificate after it (a private CA's fullchain), the CA's key, which stays the same across
// renewals by that CA whatever key each new certificate has. The agent trusts a chain that holds
// this key (agent/src/tls-trust.ts computes the same pin).
import { createHash, X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The pin of the last certificate of a PEM chain; undefined when it holds no certificate that parses. */
export function chainPin(pem: Buffer | string): string | undefined {
  const blocks = pem.toString('latin1').match(PEM_CERTIFICATE);
  const last = blocks?.at(-1);
  if (!last) return undefined;
  try {
    return publicKeyPin(new X509Certificate(last));
  } catch {
    return undefined;
  }
}

export function publicKeyPin(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}
