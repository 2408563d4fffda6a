// The configuration of users and sessions (src/config.ts): PUBLIC_URL decides whether the
// session cookie is Secure, the two session lifetimes and ADMIN_EMAIL are validated, and a bad
// value names its variable.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

describe('config: users and sessions', () => {
  it('defaults: 30 min idle, 12 h absolute, cookie not Secure, admin@localhost', () => {
    const config = loadConfig({});
    expect(config.sessions).to.deep.equal({ idleTimeoutMs: 1_800_000, maxAgeMs: 43_200_000, secureCookie: false, passwordHashCost: 15 });
    expect(config.publicUrl).to.equal(undefined);
    expect(config.adminEmail).to.equal('admin@localhost');
  });

  it('an https PUBLIC_URL makes the cookie Secure; an http one does not', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://sms.example.com' }).sessions.secureCookie).to.equal(true);
    expect(loadConfig({ PUBLIC_URL: 'HTTPS://sms.example.com/' }).sessions.secureCookie).to.equal(true);
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:3000' }).sessions.secureCookie).to.equal(false);
  });

  it('reads the lifetimes and the email', () => {
    const config = loadConfig({ SESSION_IDLE_TIMEOUT: '600', SESSION_MAX_AGE: '86400', ADMIN_EMAIL: 'Ops@Example.com' });
    expect(config.sessions.idleTimeoutMs).to.equal(600_000);
    expect(config.sessions.maxAgeMs).to.equal(86_400_000);
    expect(config.adminEmail).to.equal('ops@example.com');
  });

  it('reads PASSWORD_HASH_COST (log2 of scrypt\'s N): 15 by default, 10-20 accepted, anything else refused', () => {
    expect(loadConfig({}).sessions.passwordHashCost).to.equal(15);
    expect(loadConfig({ PASSWORD_HASH_COST: '17' }).sessions.passwordHashCost).to.equal(17);
    for (const bad of ['9', '21', '15.5', 'high']) {
      expect(configProblems({ PASSWORD_HASH_COST: bad }).find((p) => p.startsWith('PASSWORD_HASH_COST:')), bad).to.be.a('string');
    }
  });

  it('refuses bad values, naming each variable', () => {
    const problems = configProblems({ PUBLIC_URL: 'ftp://x', SESSION_IDLE_TIMEOUT: '10', SESSION_MAX_AGE: 'a day', ADMIN_EMAIL: 'nobody' });
    expect(problems).to.have.length(4);
    expect(problems.find((p) => p.startsWith('PUBLIC_URL:'))).to.contain('http://');
    expect(problems.find((p) => p.startsWith('SESSION_IDLE_TIMEOUT:'))).to.contain('from 60');
    expect(problems.find((p) => p.startsWith('SESSION_MAX_AGE:'))).to.contain('"a day"');
    expect(problems.find((p) => p.startsWith('ADMIN_EMAIL:'))).to.contain('email address');
    expect(configProblems({ PUBLIC_URL: 'not a url' })).to.deep.equal(['PUBLIC_URL: is not a valid URL']);
  });
});
