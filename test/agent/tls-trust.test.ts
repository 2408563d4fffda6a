// Which certificates the agent trusts over mqtts://, and the reason it gives for one it refuses,
// against real TLS servers on 127.0.0.1 with certificates openssl made for the test: trusted by
// the pairing URL's pin (a self-signed certificate's key, or a private CA's), refused for a pin
// of another key, a name it does not carry, dates it is not valid at, or no pin and no CA. A
// refused server never receives a byte of what the agent wrote (MQTT's CONNECT holds the token).
import { expect } from 'chai';
import { EventEmitter, once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { openTrustedTls, TlsTrustError, type TlsTarget } from '../../agent/src/tls-trust.ts';
import { certificateDirectory } from '../tls/tls-support.ts';
import { certificateAuthority, issuedBy, opensslPin, selfSigned, type MadeCertificate } from './support/certificates.ts';

const DAY_MS = 86_400_000;

describe('device agent: trusting the gateway\'s TLS certificate', () => {
  const files = certificateDirectory();
  const servers: Server[] = [];
  /** Application bytes each server received, by port. */
  const received = new Map<number, number>();
  const arrivals = new EventEmitter();
  let selfSignedCert: MadeCertificate;
  let other: MadeCertificate;
  let ca: MadeCertificate;
  let caIssued: MadeCertificate;
  let otherName: MadeCertificate;
  /** Pins worked out by openssl, by certificate file: a pipeline of four commands, so once each. */
  const pins = new Map<string, string>();
  const pinOf = (certificate: MadeCertificate) => pins.get(certificate.certFile) ?? pins.set(certificate.certFile, opensslPin(certificate.certFile)).get(certificate.certFile)!;

  before(() => {
    selfSignedCert = selfSigned(files.directory, 'self');
    other = selfSigned(files.directory, 'other');
    ca = certificateAuthority(files.directory, 'test-ca');
    caIssued = issuedBy(ca, files.directory, 'leaf');
    otherName = selfSigned(files.directory, 'elsewhere', { names: 'DNS:elsewhere.example' });
  });

  after(async () => {
    for (const server of servers) server.close();
    files.remove();
  });

  async function serve(certificate: MadeCertificate): Promise<number> {
    const server = createServer({ cert: certificate.pem, key: readFileSync(certificate.keyFile) }, (socket) => {
      const port = (server.address() as AddressInfo).port;
      socket.on('data', (chunk: Buffer) => {
        received.set(port, (received.get(port) ?? 0) + chunk.length);
        arrivals.emit('data');
      });
      socket.on('error', () => {});
    });
    server.on('tlsClientError', () => {});
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  }

  /** Connects as the agent does, writing a secret at once as MQTT.js writes its CONNECT; resolves with the refusal, or undefined when trusted. */
  async function attempt(target: Omit<TlsTarget, 'host'> & { host?: string }, now?: Date): Promise<TlsTrustError | undefined> {
    const socket: TLSSocket = openTrustedTls({ host: '127.0.0.1', ...target }, now ? () => now : undefined);
    socket.write('CONNECT with the token');
    return new Promise((resolve, reject) => {
      socket.once('secureConnect', () => {
        // The agent's own listener ran first: a refused socket is destroyed by now.
        if (socket.destroyed) return;
        socket.end();
        resolve(undefined);
      });
      socket.once('error', (error) => (error instanceof TlsTrustError ? resolve(error) : reject(error)));
    });
  }

  it('when the pin is the key of a self-signed certificate that names the host, then the certificate is trusted without any CA', async () => {
    const port = await serve(selfSignedCert);
    expect(await attempt({ port, pin: pinOf(selfSignedCert) })).to.equal(undefined);
  });

  it('when the pin is the key of the private CA that issued the certificate, then the certificate is trusted', async () => {
    const port = await serve(caIssued);
    expect(await attempt({ port, pin: pinOf(ca) })).to.equal(undefined);
  });

  it('when the pin is the key of another certificate, then it is refused as a pin mismatch and the server never receives a byte', async () => {
    const port = await serve(other);
    const refusal = await attempt({ port, pin: pinOf(selfSignedCert) });
    expect(refusal?.reason).to.equal('pin mismatch');
    expect(refusal?.message).to.match(/pair again with the pairing URL the gateway gives now/);
    // Then a trusted connection writes the same: once it has arrived, whatever the refused one
    // could have sent before it would have arrived too.
    expect(await attempt({ port, pin: pinOf(other) })).to.equal(undefined);
    while ((received.get(port) ?? 0) < 'CONNECT with the token'.length) await once(arrivals, 'data');
    expect(received.get(port), 'only the trusted connection wrote').to.equal('CONNECT with the token'.length);
  });

  it('when the pinned CA did not issue the certificate (a leaf of another CA shows the pinned CA\'s certificate beside it), then it is a pin mismatch', async () => {
    const otherCa = certificateAuthority(files.directory, 'other-ca');
    const impostor = issuedBy(otherCa, files.directory, 'impostor');
    // The pinned CA's certificate is public: an impostor can send it, but cannot have it sign.
    const port = await serve({ ...impostor, pem: impostor.pem + ca.pem });
    expect((await attempt({ port, pin: pinOf(ca) }))?.reason).to.equal('pin mismatch');
  });

  it('when there is neither a pin nor a CA, then a self-signed certificate is refused as of an unknown issuer; with it as --ca it is trusted', async () => {
    const port = await serve(selfSignedCert);
    const refusal = await attempt({ port });
    expect(refusal?.reason).to.equal('unknown issuer');
    expect(refusal?.message).to.match(/--ca/);
    expect(await attempt({ port, ca: selfSignedCert.pem })).to.equal(undefined);
  });

  it('when the pinned certificate does not name the host, then it is refused as a name mismatch', async () => {
    const port = await serve(otherName);
    const refusal = await attempt({ port, pin: pinOf(otherName) });
    expect(refusal?.reason).to.equal('name mismatch');
    expect(refusal?.message).to.contain('does not name 127.0.0.1').and.contain('elsewhere.example');
  });

  it('when the device\'s clock is past the certificate\'s end, or before its start, then it is refused as expired, or not yet valid', async () => {
    const port = await serve(caIssued);
    const pin = pinOf(ca);
    expect((await attempt({ port, pin }, new Date(Date.now() + 3 * DAY_MS)))?.reason).to.equal('expired');
    expect((await attempt({ port, pin }, new Date(Date.now() - DAY_MS)))?.reason).to.equal('not yet valid');
  });
});
