// What a provider posts back to a Twilio link, read by pure functions: status callbacks as
// receipts (status-callback.ts), inbound SMS (incoming.ts), and X-Twilio-Signature checked as
// Twilio's own library checks it (signature.ts against twilio.validateRequest).
import { expect } from 'chai';
import twilio from 'twilio';
import { readStatusCallback } from '../../src/modules/upstreams/links/twilio/status-callback.ts';
import { readIncoming } from '../../src/modules/upstreams/links/twilio/incoming.ts';
import { verifyTwilioSignature } from '../../src/modules/upstreams/links/twilio/signature.ts';

const AT = new Date('2026-01-01T00:00:00Z');
const TOKEN = '12345678901234567890123456789012';

describe('Twilio link: what the provider posts back', () => {
  it('maps sent, delivered, undelivered, failed (and canceled) to receipts; skips the steps on the way', () => {
    const callback = (status: string, extra: Record<string, string> = {}) => readStatusCallback({ MessageSid: 'SM1', MessageStatus: status, AccountSid: 'AC1', ...extra }, AT);
    expect(callback('sent')).to.deep.equal({ providerId: 'SM1', outcome: 'sent', providerStatus: 'sent', errorCode: null, at: AT });
    expect(callback('delivered')).to.include({ outcome: 'delivered' });
    expect(callback('undelivered', { ErrorCode: '30003' })).to.include({ outcome: 'undelivered', errorCode: '30003' });
    expect(callback('failed', { ErrorCode: '30008' })).to.include({ outcome: 'failed_delivery', providerStatus: 'failed', errorCode: '30008' });
    expect(callback('canceled')).to.include({ outcome: 'failed_delivery', providerStatus: 'canceled' });
    for (const step of ['queued', 'accepted', 'sending', 'scheduled', 'receiving', 'received', 'read', '']) expect(callback(step), step).to.equal(undefined);
    expect(readStatusCallback({ MessageStatus: 'delivered' })).to.equal(undefined);
    // Older accounts still get SmsSid / SmsStatus.
    expect(readStatusCallback({ SmsSid: 'SM2', SmsStatus: 'delivered', ErrorCode: '' }, AT)).to.deep.equal({ providerId: 'SM2', outcome: 'delivered', providerStatus: 'delivered', errorCode: null, at: AT });
  });

  it('reads an inbound SMS: From, To and Body; an empty Body is still a message', () => {
    expect(readIncoming({ MessageSid: 'SM3', From: '+15005550006', To: '+15005550001', Body: 'Hi there', NumMedia: '0' }, AT)).to.deep.equal({ from: '+15005550006', to: '+15005550001', text: 'Hi there', at: AT });
    expect(readIncoming({ From: '+1', To: '+2', Body: '' }, AT)).to.deep.equal({ from: '+1', to: '+2', text: '', at: AT });
    expect(readIncoming({ From: '+1', Body: 'x' })).to.equal(undefined);
    expect(readIncoming({ To: '+1', Body: 'x' })).to.equal(undefined);
    expect(readIncoming({ From: '+1', To: '+2' })).to.equal(undefined);
  });

  it("accepts exactly what Twilio's library signs, with or without the port, and nothing tampered with", () => {
    const params = { MessageSid: 'SM1', MessageStatus: 'delivered', To: '+79161234567', Body: 'é & =?' };
    for (const url of ['https://gw.example.com/upstreams/u1/status?x=1', 'https://gw.example.com:443/cb', 'http://127.0.0.1:8123/cb']) {
      const signature = twilio.getExpectedTwilioSignature(TOKEN, url, params);
      expect(verifyTwilioSignature(url, params, signature, TOKEN), url).to.equal(true);
      expect(twilio.validateRequest(TOKEN, signature, url, params)).to.equal(true);
      expect(verifyTwilioSignature(url, { ...params, MessageStatus: 'failed' }, signature, TOKEN)).to.equal(false);
      expect(verifyTwilioSignature(`${url}x`, params, signature, TOKEN)).to.equal(false);
      expect(verifyTwilioSignature(url, params, signature, 'another token')).to.equal(false);
      expect(verifyTwilioSignature(url, params, undefined, TOKEN)).to.equal(false);
      expect(verifyTwilioSignature(url, params, '', TOKEN)).to.equal(false);
    }
    // Signed without the port, checked with it (a proxy in between), and the other way round.
    const bare = twilio.getExpectedTwilioSignature(TOKEN, 'https://gw.example.com/cb', params);
    expect(verifyTwilioSignature('https://gw.example.com:443/cb', params, bare, TOKEN)).to.equal(true);
    const withPort = twilio.getExpectedTwilioSignature(TOKEN, 'https://gw.example.com:443/cb', params);
    expect(verifyTwilioSignature('https://gw.example.com/cb', params, withPort, TOKEN)).to.equal(true);
  });
});
