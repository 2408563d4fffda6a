// Certificates made by the openssl command at test time, as an operator makes them: self-signed
// ones (renewed with the same key or a new one) and a private CA with certificates it issues.
// Every certificate names localhost and 127.0.0.1 unless told otherwise, and lasts one day.
import { execFileSync, execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MadeCertificate {
  /** The PEM file a gateway is given as TLS_CERT: the certificate, then its CA's when issued by one. */
  certFile: string;
  keyFile: string;
  /** The PEM text of certFile. */
  pem: string;
}

const NAMES = 'DNS:localhost,IP:127.0.0.1';
/** P-256 keys: as good for these tests as RSA, and made in a few milliseconds. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/**
 * A self-signed certificate as `<name>.pem` and `<name>.key`: with a new key, or with `keyFile`'s
 * (a renewal that keeps the key, as `certbot --reuse-key` does).
 */
export function selfSigned(directory: string, name: string, options: { keyFile?: string; names?: string } = {}): MadeCertificate {
  const certFile = join(directory, `${name}.pem`);
  const keyFile = options.keyFile ?? join(directory, `${name}.key`);
  const key = options.keyFile ? ['-key', options.keyFile] : [...NEW_KEY, '-keyout', keyFile];
  openssl(['req', '-x509', ...key, '-days', '1', '-subj', '/CN=sms gateway test', '-addext', `subjectAltName=${options.names ?? NAMES}`, '-out', certFile]);
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}

/** A private CA: its certificate (CA:TRUE, openssl's v3_ca) and key. */
export function certificateAuthority(directory: string, name: string): MadeCertificate {
  const certFile = join(directory, `${name}.pem`);
  const keyFile = join(directory, `${name}.key`);
  openssl(['req', '-x509', ...NEW_KEY, '-keyout', keyFile, '-days', '2', '-subj', `/CN=${name}`, '-out', certFile]);
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}

/**
 * A server certificate with a new key issued by `ca`, written as a fullchain (its own
 * certificate, then the CA's), as a private CA's tooling hands it to a server.
 */
export function issuedBy(ca: MadeCertificate, directory: string, name: string, options: { names?: string } = {}): MadeCertificate {
  const certFile = join(directory, `${name}.pem`);
  const keyFile = join(directory, `${name}.key`);
  const request = join(directory, `${name}.csr`);
  const extensions = join(directory, `${name}.ext`);
  writeFileSync(extensions, `subjectAltName=${options.names ?? NAMES}\nbasicConstraints=CA:FALSE\n`);
  openssl(['req', '-new', ...NEW_KEY, '-keyout', keyFile, '-subj', '/CN=sms gateway test', '-out', request]);
  const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`;
  openssl(['x509', '-req', '-in', request, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-set_serial', serial, '-days', '1', '-extfile', extensions, '-out', certFile]);
  const pem = readFileSync(certFile, 'utf8') + ca.pem;
  writeFileSync(certFile, pem);
  return { certFile, keyFile, pem };
}

/**
 * The pin of the first certificate in `certFile`, worked out with openssl alone, as
 * docs/pairing.md tells an operator to: base64url of the SHA-256 of the public key (DER SubjectPublicKeyInfo).
 */
export function opensslPin(certFile: string): string {
  const base64 = execSync(`openssl x509 -in '${certFile}' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | openssl base64 -A`, { encoding: 'utf8' }).trim();
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
