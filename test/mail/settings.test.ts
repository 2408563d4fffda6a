// Email to SMS's settings: each SMTP_ variable read in src/config.ts has its row in the README's
// table; bad values stop the start naming the variable. And what of a mail becomes the SMS text.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblemsText, settingsReadAndDocumented } from '../support/config-problems.ts';
import { smsTextOf } from '../../src/modules/mail/text.ts';
import { readRecipient } from '../../src/api/mail/recipient.ts';



describe('email to SMS: settings', () => {
  it('every SMTP_ variable config.ts reads is a row of the README\'s table, and every row is read', () => {
    const { read, documented } = settingsReadAndDocumented('SMTP_');
    expect(documented).to.deep.equal(read);
  });

  it('is off by default; SMTP_PORT with SMTP_DOMAIN turns it on', () => {
    expect(loadConfig({}).smtp).to.deep.equal({ port: undefined, domain: undefined, tls: undefined, text: 'body', maxClients: 100, idleTimeoutMs: 60_000, dataTimeoutMs: 60_000 });
    expect(loadConfig({ SMTP_MAX_CLIENTS: '20', SMTP_IDLE_TIMEOUT: '30', SMTP_DATA_TIMEOUT: '120' }).smtp).to.deep.include({ maxClients: 20, idleTimeoutMs: 30_000, dataTimeoutMs: 120_000 });
    expect(loadConfig({ SMTP_PORT: '2525', SMTP_DOMAIN: 'SMS.Example.com', SMTP_TEXT: 'both' }).smtp).to.deep.include({ port: 2525, domain: 'sms.example.com', text: 'both' });
    expect(loadConfig({ SMTP_PORT: 'off' }).smtp.port).to.equal(undefined);
  });

  it('names the variable of a bad value', () => {
    expect(configProblemsText({ SMTP_PORT: '2525' })).to.contain('SMTP_DOMAIN: required with SMTP_PORT');
    expect(configProblemsText({ SMTP_PORT: 'mail', SMTP_DOMAIN: 'sms.example.com' })).to.contain('SMTP_PORT: must be a port number');
    expect(configProblemsText({ SMTP_PORT: '3000', SMTP_DOMAIN: 'sms.example.com' })).to.contain("SMTP_PORT: 3000 is PORT's too");
    expect(configProblemsText({ SMTP_PORT: '2525', SMTP_DOMAIN: 'not a domain' })).to.contain('SMTP_DOMAIN: must be a domain name');
    expect(configProblemsText({ SMTP_TEXT: 'html' })).to.contain('SMTP_TEXT');
    expect(configProblemsText({ SMTP_MAX_CLIENTS: '0' })).to.contain('SMTP_MAX_CLIENTS: must be a whole number from 1 to 100000');
    expect(configProblemsText({ SMTP_IDLE_TIMEOUT: '1m' })).to.contain('SMTP_IDLE_TIMEOUT: must be a whole number from 1 to 3600');
    expect(configProblemsText({ SMTP_DATA_TIMEOUT: '0' })).to.contain('SMTP_DATA_TIMEOUT: must be a whole number from 1 to 3600');
    expect(configProblemsText({ SMTP_TLS_CERT: '/nonexistent.pem' })).to.contain('SMTP_TLS_KEY: STARTTLS needs SMTP_TLS_CERT and SMTP_TLS_KEY together');
    expect(configProblemsText({ SMTP_TLS_CERT: '/nonexistent.pem', SMTP_TLS_KEY: '/nonexistent.key' })).to.match(/SMTP_TLS_CERT: .*nonexistent/);
  });

  it('takes the subject, the body or both, the body without quotes and signature', () => {
    const body = 'Dinner at 8?\r\n\r\nOn Monday, Bob wrote:\r\n> are you free?\r\n-- \r\nAlice\r\n';
    expect(smsTextOf('body', 'Plans', body)).to.equal('Dinner at 8?');
    expect(smsTextOf('subject', '  Plans\r\n for   tonight ', body)).to.equal('Plans for tonight');
    expect(smsTextOf('both', 'Plans', body)).to.equal('Plans\nDinner at 8?');
    expect(smsTextOf('both', undefined, body)).to.equal('Dinner at 8?');
    expect(smsTextOf('body', 'Plans', undefined)).to.equal('');
  });

  it('reads a recipient: a number of the domain, with or without +', () => {
    expect(readRecipient('+491701234567@sms.example.com', 'sms.example.com')).to.deep.equal({ phone: '+491701234567' });
    expect(readRecipient('491701234567@SMS.example.com', 'sms.example.com')).to.deep.equal({ phone: '+491701234567' });
    expect(readRecipient('+491701234567@example.net', 'sms.example.com')).to.have.nested.property('refusal.code', 550);
    expect(readRecipient('alice@sms.example.com', 'sms.example.com')).to.have.nested.property('refusal.text').that.contains('not a phone number');
    expect(readRecipient('+999@sms.example.com', 'sms.example.com')).to.have.property('refusal');
  });
});
