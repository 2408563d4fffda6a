// The Twilio link's settings check (src/modules/upstreams/links/twilio/settings.ts) and the
// request it makes of them (message-form.ts): every problem named at once, the sender as a
// number, a name or a Messaging Service, and the form Twilio's helper libraries send.
import { expect } from 'chai';
import { checkTwilioLinkSettings, messagesUrl } from '../../src/modules/upstreams/links/twilio/settings.ts';
import { messageForm } from '../../src/modules/upstreams/links/twilio/message-form.ts';

const GOOD = { baseUrl: 'https://api.twilio.com', accountSid: `AC${'0'.repeat(32)}`, authToken: 'f'.repeat(32), from: '+15005550006' };

describe('Twilio link settings', () => {
  it('takes a number, an alphanumeric sender or a Messaging Service, with or without pace', () => {
    expect(checkTwilioLinkSettings(GOOD)).to.deep.equal([]);
    expect(checkTwilioLinkSettings({ ...GOOD, from: 'Acme Shop' })).to.deep.equal([]);
    expect(checkTwilioLinkSettings({ ...GOOD, from: undefined, messagingServiceSid: `MG${'a'.repeat(32)}` })).to.deep.equal([]);
    expect(checkTwilioLinkSettings({ ...GOOD, maxConcurrent: 1, throughputPerSecond: 0.5 })).to.deep.equal([]);
    expect(checkTwilioLinkSettings({ ...GOOD, baseUrl: 'http://127.0.0.1:8080/gateway/' })).to.deep.equal([]);
  });

  it('names every problem at once', () => {
    const problems = checkTwilioLinkSettings({ baseUrl: 'ftp://user:pw@x/?q', accountSid: 'AC/../x', authToken: '', maxConcurrent: 0, throughputPerSecond: -1 });
    expect(problems).to.deep.equal([
      'baseUrl must be http or https',
      'baseUrl must not carry credentials (give accountSid and authToken)',
      'baseUrl must not have a query or a fragment',
      "accountSid must be letters, digits, - or _, at most 64 (Twilio's are AC and 32 hex digits)",
      'authToken is required',
      'from (a phone number or an alphanumeric sender ID) or messagingServiceSid is required',
      'maxConcurrent must be a whole number from 1 to 1000',
      'throughputPerSecond must be a number above 0, at most 10000',
    ]);
    expect(checkTwilioLinkSettings(null)).to.deep.equal(['settings must be an object']);
    expect(checkTwilioLinkSettings({ ...GOOD, baseUrl: 'not a url' })).to.deep.equal(['baseUrl is not a valid URL']);
  });

  it('refuses both senders, and senders of the wrong shape', () => {
    expect(checkTwilioLinkSettings({ ...GOOD, messagingServiceSid: `MG${'a'.repeat(32)}` })).to.deep.equal(['give either from or messagingServiceSid, not both']);
    for (const from of ['A very long sender', '12', '+1 555 0100', '!!!', 42]) {
      expect(checkTwilioLinkSettings({ ...GOOD, from }), String(from)).to.have.length(1).and.match(/^from must be/);
    }
    expect(checkTwilioLinkSettings({ ...GOOD, from: undefined, messagingServiceSid: 'MG123' })).to.deep.equal(['messagingServiceSid must be MG and 32 hex digits']);
  });

  it('makes the Messages URL under any path prefix', () => {
    expect(messagesUrl(GOOD)).to.equal(`https://api.twilio.com/2010-04-01/Accounts/${GOOD.accountSid}/Messages.json`);
    expect(messagesUrl({ baseUrl: 'http://10.1.2.3:8080/sms/', accountSid: 'AC1' })).to.equal('http://10.1.2.3:8080/sms/2010-04-01/Accounts/AC1/Messages.json');
  });

  it('sends To, From or MessagingServiceSid, Body, StatusCallback and ValidityPeriod', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const submission = { smsId: 'id', phone: '+79161234567', text: 'héllo & bye', wantsReceipt: true };
    expect(Object.fromEntries(messageForm(GOOD, submission, undefined, now))).to.deep.equal({ To: '+79161234567', From: '+15005550006', Body: 'héllo & bye' });
    const service = { messagingServiceSid: `MG${'a'.repeat(32)}` };
    const withAll = messageForm(service, { ...submission, from: 'Shop', validUntil: new Date(now + 90_500) }, 'https://gw.example/cb?u=1', now);
    expect(Object.fromEntries(withAll)).to.deep.equal({
      To: '+79161234567',
      From: 'Shop',
      MessagingServiceSid: service.messagingServiceSid,
      Body: 'héllo & bye',
      StatusCallback: 'https://gw.example/cb?u=1',
      ValidityPeriod: '91',
    });
    // Twilio's bounds: a passed or far validity is brought within 1 s .. 10 h.
    expect(messageForm(GOOD, { ...submission, validUntil: new Date(now - 5000) }, undefined, now).get('ValidityPeriod')).to.equal('1');
    expect(messageForm(GOOD, { ...submission, validUntil: new Date(now + 86_400_000) }, undefined, now).get('ValidityPeriod')).to.equal('36000');
  });
});
