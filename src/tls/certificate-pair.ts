// The gateway's TLS certificate and private key, read from the PEM files TLS_CERT and TLS_KEY and
// checked the way an operator would want to hear about it: which variable, which file, and what
// is wrong with it (missing, unreadable, not PEM, a key of another certificate). Used at start,
// where a problem stops the gateway, and on every reload, where it keeps the old pair.
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { chainPin, publicKeyPin } from './public-key-pin.ts';

export interface CertificateFiles {
  /** TLS_CERT: the server's certificate first, its chain after it (certbot's fullchain.pem). */
  certFile: string;
  /** TLS_KEY: the private key of that certificate, unencrypted. */
  keyFile: string;
}

export interface CertificatePair {
  /** The PEM texts as read: what a TLS server is given. */
  cert: Buffer;
  key: Buffer;
  /** The server's own certificate (the first of the file), described for logs and the expiry metric. */
  subject: string;
  serialNumber: string;
  notAfter: Date;
  /** SHA-256 fingerprint: tells two certificates of the same name apart in the logs. */
  fingerprint: string;
  /** The pin pairing URLs carry: the key of the last certificate of the file (public-key-pin.ts). */
  pin: string;
}

export type PairReading = { pair: CertificatePair } | { problems: string[] };

const CERTIFICATE_PEM = '-----BEGIN CERTIFICATE-----';
const PRIVATE_KEY_PEM = /-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/;

/**
 * Reads and checks both files. Never throws: every problem found is returned, each naming its
 * variable. No message repeats what a file holds, the key least of all.
 */
export function readCertificatePair(files: CertificateFiles): PairReading {
  const problems: string[] = [];
  const certText = readPem('TLS_CERT', files.certFile, problems);
  const keyText = readPem('TLS_KEY', files.keyFile, problems);
  const certificate = certText === undefined ? undefined : parseCertificate(certText, files.certFile, problems);
  const key = keyText === undefined ? undefined : parseKey(keyText, files.keyFile, problems);
  if (!certificate || !key || problems.length > 0) return { problems };

  if (!certificate.checkPrivateKey(key)) {
    return { problems: [`TLS_KEY: ${files.keyFile} is not the private key of the certificate in TLS_CERT (${files.certFile}, ${certificate.subject.replace(/\n/g, ', ')}); give the key this certificate was issued for`] };
  }
  try {
    // What the servers will be given: refused here rather than in a listener or a reload.
    createSecureContext({ cert: certText, key: keyText });
  } catch (error) {
    return { problems: [`TLS_CERT: ${files.certFile} with TLS_KEY ${files.keyFile} is refused by TLS: ${(error as Error).message}`] };
  }
  return {
    pair: {
      cert: certText!,
      key: keyText!,
      subject: certificate.subject.replace(/\n/g, ', '),
      serialNumber: certificate.serialNumber,
      notAfter: new Date(certificate.validTo),
      fingerprint: certificate.fingerprint256,
      pin: chainPin(certText!) ?? publicKeyPin(certificate),
    },
  };
}

/** Whether two readings hold the same bytes: a file event that changed nothing is no reload. */
export function samePair(a: CertificatePair, b: CertificatePair): boolean {
  return a.cert.equals(b.cert) && a.key.equals(b.key);
}

function readPem(variable: string, file: string, problems: string[]): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') problems.push(`${variable}: no file at ${file}`);
    else if (code === 'EACCES' || code === 'EPERM') problems.push(`${variable}: ${file} cannot be read by the user the gateway runs as (uid ${process.getuid?.() ?? '?'}); give that user read access`);
    else if (code === 'EISDIR') problems.push(`${variable}: ${file} is a directory; name the PEM file in it`);
    else problems.push(`${variable}: ${file} cannot be read (${code ?? (error as Error).message})`);
    return undefined;
  }
}

function parseCertificate(text: Buffer, file: string, problems: string[]): X509Certificate | undefined {
  const pem = text.toString('latin1');
  if (!pem.includes(CERTIFICATE_PEM)) {
    const swapped = PRIVATE_KEY_PEM.test(pem) ? ' (it holds a private key: are TLS_CERT and TLS_KEY swapped?)' : '';
    problems.push(`TLS_CERT: ${file} is not a PEM certificate: no "${CERTIFICATE_PEM}" line${swapped}`);
    return undefined;
  }
  try {
    // The first certificate of the file is the server's; the rest is its chain.
    return new X509Certificate(text);
  } catch {
    problems.push(`TLS_CERT: ${file} holds a PEM certificate that cannot be parsed`);
    return undefined;
  }
}

function parseKey(text: Buffer, file: string, problems: string[]): KeyObject | undefined {
  const pem = text.toString('latin1');
  const marker = PRIVATE_KEY_PEM.exec(pem);
  if (!marker) {
    const swapped = pem.includes(CERTIFICATE_PEM) ? ' (it holds a certificate: are TLS_CERT and TLS_KEY swapped?)' : '';
    problems.push(`TLS_KEY: ${file} is not a PEM private key: no "-----BEGIN PRIVATE KEY-----" line${swapped}`);
    return undefined;
  }
  if (marker[1] === 'ENCRYPTED ' || /Proc-Type: 4,ENCRYPTED/.test(pem)) {
    problems.push(`TLS_KEY: ${file} is encrypted with a passphrase, which the gateway cannot be given; decrypt it (openssl pkey -in encrypted.pem -out ${file}) and keep it readable by the gateway's user only`);
    return undefined;
  }
  try {
    return createPrivateKey(text);
  } catch {
    // The parser's own message is not repeated: it could quote the key's bytes.
    problems.push(`TLS_KEY: ${file} holds a PEM private key that cannot be parsed`);
    return undefined;
  }
}
