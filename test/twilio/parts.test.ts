// The Twilio module's pure parts: the signature against the official library's, TwiML replies,
// message Sids, and our statuses in Twilio's words.
import { expect } from 'chai';
import twilio from 'twilio';
import { twilioSignature } from '../../src/modules/twilio/signature.ts';
import { repliesOf, MAX_REPLIES } from '../../src/modules/twilio/twiml.ts';
import { messageSid, uuidOfMessageSid } from '../../src/modules/twilio/sids.ts';
import { twilioSteps } from '../../src/modules/twilio/callback-params.ts';
import { twilioStatus } from '../../src/modules/twilio/statuses.ts';

describe('twilio: parts', () => {
  it('signs as the official library expects, whatever the parameters hold', () => {
    const params = { MessageSid: 'SM' + 'a'.repeat(32), Body: 'Grüße & <tags> = +', To: '+79161234567', Empty: '' };
    const url = 'https://example.com:8443/hook?x=1&y=two';
    const signature = twilioSignature('12345678901234567890123456789012', url, new URLSearchParams(params));
    expect(signature).to.equal(twilio.getExpectedTwilioSignature('12345678901234567890123456789012', url, params));
    expect(twilio.validateRequest('12345678901234567890123456789012', signature, url, params)).to.equal(true);
  });

  it('reads TwiML <Message>s: plain, <Body>, entities, CDATA, a "to" attribute; nothing from anything else', () => {
    expect(repliesOf('<Response><Message>Hi &amp; bye</Message></Response>')).to.deep.equal([{ body: 'Hi & bye' }]);
    expect(repliesOf('<?xml version="1.0"?><Response><Message to="+79161234567"><Body><![CDATA[a <b>]]></Body></Message><Message>two</Message></Response>')).to.deep.equal([
      { body: 'a <b>', to: '+79161234567' },
      { body: 'two' },
    ]);
    expect(repliesOf('<Response/>')).to.deep.equal([]);
    expect(repliesOf('<Response><Message>  </Message></Response>')).to.deep.equal([]);
    expect(repliesOf('OK')).to.deep.equal([]);
    expect(repliesOf(`<Response>${'<Message>x</Message>'.repeat(50)}</Response>`)).to.have.length(MAX_REPLIES);
  });

  it('maps a message Sid back to its SMS id, and refuses what is no Sid', () => {
    const uuid = '0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
    expect(messageSid(uuid)).to.equal('SM0f8e2c1a5b6d4e7f8a9b0c1d2e3f4a5b');
    expect(uuidOfMessageSid(messageSid(uuid))).to.equal(uuid);
    expect(uuidOfMessageSid('SM123')).to.equal(undefined);
    expect(uuidOfMessageSid('MM0f8e2c1a5b6d4e7f8a9b0c1d2e3f4a5b')).to.equal(undefined);
  });

  it('names each Twilio status a change passes once, with an error code where it failed', () => {
    expect(twilioSteps('pending', ['processing', 'sent', 'delivered'], null)).to.deep.equal([
      { status: 'sending', errorCode: null },
      { status: 'sent', errorCode: null },
      { status: 'delivered', errorCode: null },
    ]);
    expect(twilioSteps('pending', ['failed_send'], 'expired')).to.deep.equal([{ status: 'failed', errorCode: 30001 }]);
    expect(twilioSteps('pending', ['failed_send'], 'cancelled')).to.deep.equal([{ status: 'canceled', errorCode: null }]);
    expect(twilioSteps('sent', ['failed_delivery'], null)).to.deep.equal([{ status: 'undelivered', errorCode: 30003 }]);
    expect(twilioStatus('pending', null, new Date(Date.now() + 60_000))).to.equal('scheduled');
  });
});
