// SMPP's settings: each one read in src/config.ts has its row in the README's table, and bad
// values stop the start with a message that names the variable.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblemsText, settingsReadAndDocumented } from '../support/config-problems.ts';



describe('SMPP: settings', () => {
  it('every SMPP_ variable config.ts reads is a row of the README\'s table, and every row is read', () => {
    const { read, documented } = settingsReadAndDocumented('SMPP_');
    expect(documented).to.deep.equal(read);
  });

  it('is off by default; SMPP_PORT turns it on, "off" leaves it off', () => {
    expect(loadConfig({}).smpp).to.include({ port: undefined, tls: undefined, enquireLinkMs: 30_000 });
    expect(loadConfig({ SMPP_PORT: '2775' }).smpp.port).to.equal(2775);
    expect(loadConfig({ SMPP_PORT: 'off' }).smpp.port).to.equal(undefined);
  });

  it('names the variable of a bad value', () => {
    expect(configProblemsText({ SMPP_PORT: 'smpp' })).to.contain('SMPP_PORT: must be a port number');
    expect(configProblemsText({ SMPP_PORT: '3000' })).to.contain("SMPP_PORT: 3000 is PORT's too");
    expect(configProblemsText({ SMPP_TLS_PORT: '3550' })).to.contain('SMPP_TLS_CERT, SMPP_TLS_KEY: SMPP over TLS needs');
    expect(configProblemsText({ SMPP_TLS_PORT: '3550', SMPP_TLS_CERT: '/nonexistent.pem', SMPP_TLS_KEY: '/nonexistent.key' })).to.match(/SMPP_TLS_CERT: .*nonexistent/);
    expect(configProblemsText({ SMPP_ENQUIRE_LINK_INTERVAL: '0' })).to.contain('SMPP_ENQUIRE_LINK_INTERVAL');
    expect(configProblemsText({ SMPP_RECEIPT_RETENTION: 'forever' })).to.contain('SMPP_RECEIPT_RETENTION');
  });
});
