// Whether the agent trusts the certificate an mqtts:// gateway shows, and, when it does not, why,
// in words a person can act on. A certificate is trusted when the system's CAs (or the --ca file)
// vouch for it and it names the host, as any TLS client checks; or when the pairing URL's pin is
// the key of one of the certificates the gateway showed, every certificate below it signed by the
// one above, all in their validity dates, and the first naming the host. The pin lets a
// self-signed or private-CA certificate work from the pairing URL alone (docs/pairing.md).
import { createHash, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { checkServerIdentity, connect, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';

export type TrustFailureReason = 'unknown issuer' | 'name mismatch' | 'expired' | 'not yet valid' | 'pin mismatch' | 'untrusted';

/** A certificate refused. `code` is set because MQTT.js passes on only stream errors that have one. */
export class TlsTrustError extends Error {
  readonly code = 'TLS_UNTRUSTED';
  constructor(
    readonly reason: TrustFailureReason,
    message: string,
    /** What identifies the certificate refused (its subject, fingerprint, dates), for the log. */
    readonly certificate: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A pin: base64url (no padding) of the SHA-256 of a certificate's SubjectPublicKeyInfo, 43 characters. */
export function publicKeyPin(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export interface TlsTarget {
  host: string;
  port: number;
  /** PEM certificates to trust instead of the system's (--ca). */
  ca?: string | Buffer | undefined;
  /** The pairing URL's pin. */
  pin?: string | undefined;
}

/**
 * Opens a TLS connection for MQTT.js and judges the certificate as soon as the handshake ends,
 * before anything is sent: what MQTT.js writes meanwhile (its CONNECT, with the token) waits for
 * the handshake in the socket, and a socket destroyed in the secureConnect listener never sends
 * it. Node's own check (rejectUnauthorized) works the same way; it is turned off here only so
 * that a pinned certificate can be accepted, and a refused one told apart by its reason.
 */
export function openTrustedTls(target: TlsTarget, now: () => Date = () => new Date()): TLSSocket {
  const socket = connect({
    host: target.host,
    port: target.port,
    // SNI takes a name, never an address.
    ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
    ...(target.ca ? { ca: target.ca } : {}),
    rejectUnauthorized: false,
  });
  socket.once('secureConnect', () => {
    const failure = judgeCertificate(socket, target, now());
    if (failure) socket.destroy(failure);
  });
  return socket;
}

/** Undefined when the certificate the socket was shown is trusted; else why not. */
export function judgeCertificate(socket: TLSSocket, target: Pick<TlsTarget, 'host' | 'pin'>, now: Date): TlsTrustError | undefined {
  // Node checked the chain against the CAs it was given and the name (checkServerIdentity).
  if (socket.authorized) return undefined;
  const peer = socket.getPeerCertificate(true);
  const chain = presentedChain(peer);
  const nodeFailure = fromNodeCode(String(socket.authorizationError ?? ''), target.host, chain[0]);
  if (!target.pin) return nodeFailure;
  const pinned = judgePinnedChain(chain, peer, target.host, target.pin, now);
  // A certificate the system trusts but refuses for its name or dates is told as such, not as a
  // pin that does not match: the pin is not what would have made it trusted.
  if (pinned?.reason === 'pin mismatch' && nodeFailure.reason !== 'unknown issuer') return nodeFailure;
  return pinned;
}

/** The certificates the gateway showed, its own first, then each one's issuer as sent. */
function presentedChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: DetailedPeerCertificate | undefined = peer;
  while (current?.raw && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}

/** The longest path from the server's certificate up to the pinned one that is looked for. */
const MAX_CHAIN = 8;

function judgePinnedChain(chain: X509Certificate[], peer: DetailedPeerCertificate, host: string, pin: string, now: Date): TlsTrustError | undefined {
  const leaf = chain[0];
  if (!leaf) return new TlsTrustError('untrusted', 'the gateway showed no certificate');
  // Up from the server's own certificate, each signed by the next, to the one with the pinned
  // key. The server proved it holds its own certificate's key in the handshake, so a pinned leaf
  // needs no signature; a pinned CA must have signed what is below it.
  const path = [leaf];
  let current = leaf;
  while (publicKeyPin(current) !== pin) {
    const issuer = chain.find((candidate) => !path.includes(candidate) && candidate.ca && current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (!issuer || path.length >= MAX_CHAIN) {
      return new TlsTrustError(
        'pin mismatch',
        'no certificate the gateway showed has the key the pairing URL pins: its certificate was replaced by one with another key and another CA (pair again with the pairing URL the gateway gives now), or what answers is not the gateway',
        describe(leaf),
      );
    }
    path.push(issuer);
    current = issuer;
  }
  for (const certificate of path) {
    if (now.getTime() > Date.parse(certificate.validTo)) return expired(certificate);
    if (now.getTime() < Date.parse(certificate.validFrom)) return notYetValid(certificate);
  }
  if (checkServerIdentity(host, peer)) return nameMismatch(host, leaf);
  return undefined;
}

/** Node's verification codes (OpenSSL's), by what a person does about them. */
const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_UNTRUSTED',
]);

function fromNodeCode(code: string, host: string, leaf: X509Certificate | undefined): TlsTrustError {
  const certificate = leaf ? describe(leaf) : {};
  if (UNKNOWN_ISSUER.has(code)) {
    return new TlsTrustError(
      'unknown issuer',
      `the gateway's certificate is not signed by a CA this agent trusts (${code}): pair with the pairing URL the gateway gives now (with TLS it carries the certificate's pin), or give the CA's certificate with --ca`,
      certificate,
    );
  }
  if (code === 'CERT_HAS_EXPIRED' && leaf) return expired(leaf);
  if (code === 'CERT_NOT_YET_VALID' && leaf) return notYetValid(leaf);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' && leaf) return nameMismatch(host, leaf);
  return new TlsTrustError('untrusted', `the gateway's certificate is refused (${code || 'no reason given'})`, certificate);
}

function expired(certificate: X509Certificate): TlsTrustError {
  return new TlsTrustError('expired', `the gateway's certificate (or its CA's) expired on ${certificate.validTo}: renew it on the gateway, or check this device's clock`, describe(certificate));
}

function notYetValid(certificate: X509Certificate): TlsTrustError {
  return new TlsTrustError('not yet valid', `the gateway's certificate (or its CA's) is not valid before ${certificate.validFrom}: check this device's clock`, describe(certificate));
}

function nameMismatch(host: string, leaf: X509Certificate): TlsTrustError {
  return new TlsTrustError(
    'name mismatch',
    `the gateway's certificate does not name ${host} (it names ${leaf.subjectAltName ?? leaf.subject.replace(/\n/g, ', ')}): the pairing URL's host must be one of its names (the gateway takes it from MQTT_PUBLIC_URL or PUBLIC_URL)`,
    describe(leaf),
  );
}

/** What identifies a certificate in a log line; all of it public. */
function describe(certificate: X509Certificate): Record<string, string> {
  return { subject: certificate.subject.replace(/\n/g, ', '), fingerprint: certificate.fingerprint256, notAfter: certificate.validTo };
}
