// `sms-gateway devices register` on a gateway that serves TLS itself: the pairing URL it prints
// names the MQTTS port with tls=1 and the pin of TLS_CERT's key, as the API's answer does, so that
// a device paired from the command line trusts a self-signed certificate too (docs/pairing.md).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { parsePairingUrl } from '../../agent/src/pairing.ts';
import { jsonOf, killChildren, runCli, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabase, testDatabaseUrl } from '../support/environment.ts';
import { certificateDirectory } from '../tls/tls-support.ts';
import { opensslPin, selfSigned } from '../agent/support/certificates.ts';

describe('sms-gateway devices register with TLS_CERT', function () {
  this.timeout(90_000);
  const files = certificateDirectory();
  const cleanups: (() => void)[] = [() => files.remove()];
  after(() => {
    killChildren();
    for (const cleanup of cleanups) cleanup();
  });

  it('when the gateway has a self-signed TLS_CERT, then the printed pairing URL has tls=1, MQTTS_PORT and the pin of the certificate\'s key', async () => {
    const certificate = selfSigned(files.directory, 'gateway');
    let env: Env = { TLS_CERT: certificate.certFile, TLS_KEY: certificate.keyFile, MQTTS_PORT: '18883' };
    if (testDatabase().kind === 'postgres') {
      env = { ...env, DATABASE_URL: testDatabaseUrl() };
    } else {
      const dataDir = tempDataDir('cli-tls');
      cleanups.push(dataDir.remove);
      env = { ...env, DATA_DIR: dataDir.dir };
    }
    const account = `cli-tls-${randomBytes(4).toString('hex')}`;
    const created = await runCli(['accounts', 'create', account], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
    const registered = await runCli(['devices', 'register', '--account', account, '--name', 'tls-phone', '--host', 'sms.example.com', '--json'], env);
    expect(registered.code, registered.transcript).to.equal(0);
    const url = jsonOf(registered).pairing_url as string;
    expect(url).to.match(/^smsgw:\/\/sms\.example\.com:18883\?/);
    expect(parsePairingUrl(url)).to.include({ brokerUrl: 'mqtts://sms.example.com:18883', pin: opensslPin(certificate.certFile) });
  });
});
