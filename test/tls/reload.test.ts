// A renewed certificate is served without a restart, on HTTPS and MQTTS alike: on SIGHUP (what a
// certbot deploy hook sends) and when the files change on disk. A bad new pair is refused and
// the old certificate stays. Which certificate is served is read off a new TLS connection.
import { expect } from 'chai';
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useGateway } from '../support/use-gateway.ts';
import { certificateDirectory, makeCertificate, servedSerial, type TestCertificate } from './tls-support.ts';
import { eventually } from '../support/eventually.ts';

describe('TLS: the certificate is reloaded without a restart', function () {
  this.timeout(30_000);
  const files = certificateDirectory();
  /** The paths the gateway is configured with; tests put other certificates there. */
  const live = { certFile: join(files.directory, 'live.pem'), keyFile: join(files.directory, 'live.key') };
  let first: TestCertificate;
  let spare: { second: TestCertificate; third: TestCertificate };
  const fx = useGateway({
    config: () => {
      first = makeCertificate(files.directory, 'first', 'first.localhost');
      spare = { second: makeCertificate(files.directory, 'second', 'second.localhost'), third: makeCertificate(files.directory, 'third', 'third.localhost') };
      install(first);
      return { tls: { ...live, mqttsPort: 0 } };
    },
    tenant: 'none',
  });
  after(() => files.remove());

  /** Puts a certificate at the live paths as a renewal does: a new file renamed over the old. */
  function install(certificate: TestCertificate): void {
    copyFileSync(certificate.certFile, `${live.certFile}.new`);
    copyFileSync(certificate.keyFile, `${live.keyFile}.new`);
    renameSync(`${live.certFile}.new`, live.certFile);
    renameSync(`${live.keyFile}.new`, live.keyFile);
  }

  /** The serials a new connection to the HTTPS port and to the MQTTS port is shown. */
  const served = async () => [await servedSerial(fx.gateway.httpPort), await servedSerial(fx.gateway.mqttsPort)];

  // In order: each test starts from the certificate the one before left served.
  it('when the gateway starts, then HTTPS and MQTTS serve the configured certificate', async () => {
    expect(await served()).to.deep.equal([first.serialNumber, first.serialNumber]);
    expect(fx.gateway.certificates.reloader?.pair.serialNumber).to.equal(first.serialNumber);
  });

  it('when a new pair is in place and SIGHUP arrives, then new connections over HTTPS and MQTTS get the new certificate', async () => {
    install(spare.second);
    // What the SIGHUP handler does; the process signal itself is checked below.
    expect(fx.gateway.certificates.reload('SIGHUP')).to.equal('applied');
    expect(await served()).to.deep.equal([spare.second.serialNumber, spare.second.serialNumber]);
  });

  it('when SIGHUP arrives and the files are unchanged, then nothing changes', async () => {
    expect(fx.gateway.certificates.reload('SIGHUP')).to.equal('unchanged');
    expect(await served()).to.deep.equal([spare.second.serialNumber, spare.second.serialNumber]);
  });

  it('when the new key is not the certificate\'s, then the reload is refused and the old certificate is still served', async () => {
    copyFileSync(spare.third.certFile, live.certFile);
    copyFileSync(first.keyFile, live.keyFile);
    expect(fx.gateway.certificates.reload('SIGHUP')).to.equal('refused');
    expect(await served()).to.deep.equal([spare.second.serialNumber, spare.second.serialNumber]);
  });

  it('when the certificate file is not PEM, then the reload is refused and the old certificate is still served', async () => {
    writeFileSync(live.certFile, 'not a certificate\n');
    expect(fx.gateway.certificates.reload('SIGHUP')).to.equal('refused');
    expect(await served()).to.deep.equal([spare.second.serialNumber, spare.second.serialNumber]);
  });

  it('when the process receives SIGHUP, then the gateway reloads', async () => {
    install(spare.third);
    process.emit('SIGHUP', 'SIGHUP');
    expect(await served()).to.deep.equal([spare.third.serialNumber, spare.third.serialNumber]);
  });

  it('when the files are replaced on disk (renamed over), then the new certificate is served without a signal', async () => {
    install(first);
    await eventually('the first certificate served again', async () => (await served()).every((serial) => serial === first.serialNumber));
  });
});
