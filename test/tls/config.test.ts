// TLS_CERT, TLS_KEY, MQTTS_PORT and MQTT_PORT=off as loadConfig reads them: a bad value or a bad
// file stops the start with a message naming the variable and the file, never the key's bytes.
import { expect } from 'chai';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';
import { startGateway } from '../support/gateway.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { certificateDirectory, makeCertificate, type TestCertificate } from './tls-support.ts';

describe('TLS configuration: TLS_CERT, TLS_KEY, MQTTS_PORT, MQTT_PORT=off', () => {
  const files = certificateDirectory();
  let good: TestCertificate;
  let other: TestCertificate;
  before(() => {
    good = makeCertificate(files.directory, 'good');
    other = makeCertificate(files.directory, 'other');
  });
  after(() => files.remove());

  const pair = () => ({ TLS_CERT: good.certFile, TLS_KEY: good.keyFile });
  /** A file in the test's directory holding `text`. */
  const file = (name: string, text: string) => {
    const path = join(files.directory, name);
    writeFileSync(path, text);
    return path;
  };

  it('when neither is set, then TLS is off, plain MQTT listens on MQTT_PORT and the cookie is not Secure', () => {
    const config = loadConfig({});
    expect(config.tls).to.equal(undefined);
    expect(config.plainMqtt).to.equal(true);
    expect(config.sessions.secureCookie).to.equal(false);
  });

  it('when both name a good pair, then TLS is on with MQTTS on 8883, plain MQTT still on, and the session cookie Secure', () => {
    const config = loadConfig(pair());
    expect(config.tls).to.deep.equal({ certFile: good.certFile, keyFile: good.keyFile, mqttsPort: 8883 });
    expect(config.plainMqtt).to.equal(true);
    expect(config.sessions.secureCookie).to.equal(true);
  });

  it('when MQTTS_PORT is given, then MQTT over TLS listens there', () => {
    expect(loadConfig({ ...pair(), MQTTS_PORT: '18883' }).tls?.mqttsPort).to.equal(18883);
    expect(loadConfig({ ...pair(), MQTTS_PORT: '0' }).tls?.mqttsPort).to.equal(0);
  });

  it('when MQTT_PORT is "off" with TLS, then no plain MQTT listener is configured', () => {
    expect(loadConfig({ ...pair(), MQTT_PORT: 'off' }).plainMqtt).to.equal(false);
  });

  const refused: [string, () => Record<string, string>, RegExp][] = [
    ['only TLS_CERT is set', () => ({ TLS_CERT: good.certFile }), /^TLS_KEY: must be set with TLS_CERT \(both or neither\)/],
    ['only TLS_KEY is set', () => ({ TLS_KEY: good.keyFile }), /^TLS_CERT: must be set with TLS_KEY \(both or neither\)/],
    ['TLS_CERT names no file', () => ({ ...pair(), TLS_CERT: join(files.directory, 'missing.pem') }), /^TLS_CERT: no file at .*missing\.pem$/],
    ['TLS_KEY names a directory', () => ({ ...pair(), TLS_KEY: files.directory }), /^TLS_KEY: .* is a directory/],
    ['TLS_CERT is not PEM', () => ({ ...pair(), TLS_CERT: file('junk.pem', 'hello\n') }), /^TLS_CERT: .*junk\.pem is not a PEM certificate/],
    ['TLS_KEY is not PEM', () => ({ ...pair(), TLS_KEY: file('junk.key', 'hello\n') }), /^TLS_KEY: .*junk\.key is not a PEM private key/],
    ['TLS_CERT holds a damaged certificate', () => ({ ...pair(), TLS_CERT: file('broken.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') }), /^TLS_CERT: .* cannot be parsed$/],
    ['TLS_KEY is the key of another certificate', () => ({ TLS_CERT: good.certFile, TLS_KEY: other.keyFile }), /^TLS_KEY: .*other\.key is not the private key of the certificate in TLS_CERT/],
    ['TLS_KEY is encrypted with a passphrase', () => ({ ...pair(), TLS_KEY: encryptedCopy(good.keyFile) }), /^TLS_KEY: .* is encrypted with a passphrase/],
    ['MQTTS_PORT is set without TLS', () => ({ MQTTS_PORT: '8883' }), /^MQTTS_PORT: needs TLS_CERT and TLS_KEY/],
    ['MQTTS_PORT is no port', () => ({ ...pair(), MQTTS_PORT: 'tls' }), /^MQTTS_PORT: must be a port number \(0-65535\), got "tls"$/],
    ['MQTTS_PORT is PORT', () => ({ ...pair(), PORT: '4000', MQTTS_PORT: '4000' }), /^MQTTS_PORT: 4000 is PORT's too/],
    ['MQTTS_PORT is MQTT_PORT', () => ({ ...pair(), MQTT_PORT: '8883' }), /^MQTTS_PORT: 8883 is MQTT_PORT's too; choose another, or set MQTT_PORT=off$/],
    ['MQTT_PORT is "off" without TLS', () => ({ MQTT_PORT: 'off' }), /^MQTT_PORT: "off" needs TLS_CERT and TLS_KEY/],
    ['MQTT_PORT is neither a port nor "off"', () => ({ MQTT_PORT: 'none' }), /^MQTT_PORT: must be a port number \(0-65535\) or off, got "none"$/],
  ];
  for (const [what, env, message] of refused) {
    it(`when ${what}, then the configuration is refused with one message naming the variable`, () => {
      const problems = configProblems(env());
      expect(problems, JSON.stringify(problems)).to.have.length(1);
      expect(problems[0]).to.match(message);
    });
  }

  it('when TLS_CERT and TLS_KEY are swapped, then each message says they may be', () => {
    const problems = configProblems({ TLS_CERT: good.keyFile, TLS_KEY: good.certFile });
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^TLS_CERT: .* is not a PEM certificate: .*\(it holds a private key: are TLS_CERT and TLS_KEY swapped\?\)$/);
    expect(problems[1]).to.match(/^TLS_KEY: .* is not a PEM private key: .*\(it holds a certificate: are TLS_CERT and TLS_KEY swapped\?\)$/);
  });

  it('when TLS_KEY cannot be read by the gateway\'s user, then the message says so', function () {
    this.timeout(330_000);
    const unreadable = join(files.directory, 'unreadable.key');
    writeFileSync(unreadable, readFileSync(good.keyFile));
    chmodSync(unreadable, 0o000);
    if (process.getuid?.() !== 0) {
      expect(configProblems({ ...pair(), TLS_KEY: unreadable })).to.deep.equal([
        `TLS_KEY: ${unreadable} cannot be read by the user the gateway runs as (uid ${process.getuid!()}); give that user read access`,
      ]);
      return;
    }
    // root reads any file whatever its mode: the gateway is started as another user instead, as
    // a service runs, and must refuse to start with the same message.
    const nobody = 65534;
    chmodSync(files.directory, 0o755);
    chmodSync(good.certFile, 0o644);
    // dist/ fresh first: the other user could not build it in the repository.
    expect(spawnSync(process.execPath, ['bin/sms-gateway.js', '--version'], { cwd: REPO_ROOT, timeout: 300_000 }).status).to.equal(0);
    const run = spawnSync(process.execPath, ['bin/sms-gateway.js', 'serve'], {
      cwd: REPO_ROOT,
      uid: nobody,
      gid: nobody,
      env: { PATH: process.env.PATH, HOME: files.directory, DATA_DIR: join(files.directory, 'data'), PORT: '0', MQTT_PORT: '0', TLS_CERT: good.certFile, TLS_KEY: unreadable },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(1);
    expect(run.stderr).to.contain(`TLS_KEY: ${unreadable} cannot be read by the user the gateway runs as (uid ${nobody}); give that user read access`);
    expect(run.stderr).not.to.match(/\n\s+at /);
  });

  it('when a problem is about the key file, then the message never holds the key\'s text', () => {
    const key = readFileSync(good.keyFile, 'utf8');
    const body = key.split('\n')[1]!;
    for (const env of [{ TLS_CERT: other.certFile, TLS_KEY: good.keyFile }, { TLS_CERT: good.keyFile, TLS_KEY: good.keyFile }]) {
      for (const problem of configProblems(env)) expect(problem).to.not.contain(body);
    }
  });

  it('when the files go bad between reading the configuration and the start, then the start fails with the same message', async () => {
    const directory = join(files.directory, 'later');
    mkdirSync(directory);
    const certFile = join(directory, 'cert.pem');
    writeFileSync(certFile, readFileSync(good.certFile));
    const config = loadConfig({ TLS_CERT: certFile, TLS_KEY: good.keyFile });
    writeFileSync(certFile, readFileSync(other.certFile));
    const failure = await startGateway({ tls: config.tls }).then(
      async (gateway) => {
        await gateway.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(ConfigError);
    expect((failure as ConfigError).problems[0]).to.match(/^TLS_KEY: .* is not the private key of the certificate in TLS_CERT/);
  });

  /** The key, encrypted with a passphrase, as a new file. */
  function encryptedCopy(keyFile: string): string {
    const encrypted = join(files.directory, 'encrypted.key');
    execFileSync('openssl', ['pkey', '-in', keyFile, '-aes256', '-passout', 'pass:secret', '-out', encrypted], { stdio: 'pipe' });
    return encrypted;
  }
});
