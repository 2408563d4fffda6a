// Self-signed certificates made by openssl at test time, for localhost and 127.0.0.1, in a
// temporary directory; each one is its own CA, so a client trusts exactly the one it is given.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** The certificate's PEM: the CA a client is given to trust it. */
  pem: string;
  serialNumber: string;
}

/** A fresh directory for certificates; removed by the returned function. */
export function certificateDirectory(): { directory: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), 'sgw-tls-'));
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** A new key and self-signed certificate as `<name>.pem` and `<name>.key` in `directory`. */
export function makeCertificate(directory: string, name: string, commonName = 'localhost'): TestCertificate {
  const certFile = join(directory, `${name}.pem`);
  const keyFile = join(directory, `${name}.key`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
    { stdio: 'pipe' },
  );
  const pem = readFileSync(certFile, 'utf8');
  return { certFile, keyFile, pem, serialNumber: new X509Certificate(pem).serialNumber };
}

/** The serial number of the certificate a new TLS connection to 127.0.0.1:port is shown. */
export function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // Not verified here: the point is which certificate is served, whichever it is.
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.destroy();
      resolve(serial);
    });
    socket.once('error', reject);
  });
}

