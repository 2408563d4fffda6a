// SMPP's settings: each one read in src/config.ts has its row in the README's table, and bad
// values stop the start with a message that names the variable.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
    return '';
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('SMPP: settings', () => {
  it('every SMPP_ variable config.ts reads is a row of the README\'s table, and every row is read', () => {
    const source = readFileSync(`${ROOT}/src/config.ts`, 'utf8');
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const read = new Set([...source.matchAll(/\b(SMPP_[A-Z_]*[A-Z])\b/g)].map((match) => match[1]!));
    const documented = new Set([...readme.matchAll(/^\| `(SMPP_[A-Z_]+)` \|/gm)].map((match) => match[1]!));
    expect([...documented].sort()).to.deep.equal([...read].sort());
  });

  it('is off by default; SMPP_PORT turns it on, "off" leaves it off', () => {
    expect(loadConfig({}).smpp).to.include({ port: undefined, tls: undefined, enquireLinkMs: 30_000 });
    expect(loadConfig({ SMPP_PORT: '2775' }).smpp.port).to.equal(2775);
    expect(loadConfig({ SMPP_PORT: 'off' }).smpp.port).to.equal(undefined);
  });

  it('names the variable of a bad value', () => {
    expect(problemsOf({ SMPP_PORT: 'smpp' })).to.contain('SMPP_PORT: must be a port number');
    expect(problemsOf({ SMPP_PORT: '3000' })).to.contain("SMPP_PORT: 3000 is PORT's too");
    expect(problemsOf({ SMPP_TLS_PORT: '3550' })).to.contain('SMPP_TLS_CERT, SMPP_TLS_KEY: SMPP over TLS needs');
    expect(problemsOf({ SMPP_TLS_PORT: '3550', SMPP_TLS_CERT: '/nonexistent.pem', SMPP_TLS_KEY: '/nonexistent.key' })).to.match(/SMPP_TLS_CERT: .*nonexistent/);
    expect(problemsOf({ SMPP_ENQUIRE_LINK_INTERVAL: '0' })).to.contain('SMPP_ENQUIRE_LINK_INTERVAL');
    expect(problemsOf({ SMPP_RECEIPT_RETENTION: 'forever' })).to.contain('SMPP_RECEIPT_RETENTION');
  });
});
