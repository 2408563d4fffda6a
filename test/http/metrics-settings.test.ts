// The settings of /metrics, read at start: METRICS_TOKEN long enough not to be guessed and never
// echoed when refused, METRICS_PORT a port of its own, METRICS_HOST following HOST.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';
import { REPO_ROOT } from '../support/cli.ts';

describe('the settings of /metrics', () => {
  it('when none is set, then /metrics is served nowhere', () => {
    expect(loadConfig({}).metrics).to.deep.equal({ token: undefined, port: undefined, host: '0.0.0.0' });
  });

  it('when they are set, then they are read; METRICS_HOST follows HOST unless set', () => {
    const token = 'f'.repeat(64);
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_PORT: '9464', HOST: '10.0.0.5' }).metrics).to.deep.equal({ token, port: 9464, host: '10.0.0.5' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).metrics.host).to.equal('127.0.0.1');
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics.port).to.equal(undefined);
  });

  it('when the token is short or holds spaces, then the start is refused naming METRICS_TOKEN, without echoing it', () => {
    for (const token of ['short-secret', 'sixteen chars and spaces']) {
      const problems = configProblems({ METRICS_TOKEN: token });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^METRICS_TOKEN: must be 16 to 256 visible ASCII characters/);
      expect(problems[0]).not.to.contain(token);
    }
  });

  it('when METRICS_PORT is no port or another listener\'s, then the start is refused naming it', () => {
    expect(configProblems({ METRICS_PORT: 'metrics' })).to.deep.equal(['METRICS_PORT: must be a port number (0-65535) or off, got "metrics"']);
    expect(configProblems({ METRICS_PORT: '3000' })).to.deep.equal(["METRICS_PORT: 3000 is PORT's too; choose another"]);
    expect(configProblems({ METRICS_PORT: '1883' })).to.deep.equal(["METRICS_PORT: 1883 is MQTT_PORT's too; choose another"]);
  });

  it('when the README is read, then each of them has its row in the settings table', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    for (const name of ['METRICS_TOKEN', 'METRICS_PORT', 'METRICS_HOST']) expect(readme, name).to.match(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });
});
