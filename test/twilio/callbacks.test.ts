// What the gateway POSTs to Twilio receivers: a StatusCallback per status change of an SMS made
// through the Twilio API (queued, sending, sent, delivered, in order, retried after a failure),
// and an incoming SMS to the credential's sms_url, whose TwiML answer is sent back through the
// phone that received it. Every request is form-encoded and signed so that the official
// library's validateRequest accepts it, and refuses it once tampered with.
import { expect } from 'chai';
import twilio from 'twilio';
import { useGateway } from '../support/use-gateway.ts';
import type { Received, Receiver } from '../support/receiver.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { hasDisabledTwilioCallback } from '../support/test-data.ts';
import { createCredential, twilioClient, type Credential } from './support.ts';

const TO = '+79161234567';
const SENDER = '+79005550101';

function paramsOf(received: Received): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(received.body));
}

/** Whether the official library accepts the request as signed with `token` for `url`. */
function validates(token: string, received: Received, url: string): boolean {
  return twilio.validateRequest(token, String(received.headers['x-twilio-signature']), url, paramsOf(received));
}

describe('twilio: status callbacks and incoming SMS', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });
  let receiver: Receiver;
  let credential: Credential;

  beforeEach(async () => {
    receiver = await fx.receiver();
    credential = await createCredential(fx.tenant);
  });

  it('calls the StatusCallback at each status, queued, sending, sent, delivered, in order, signed; a failed attempt is retried', async () => {
    // The first attempt of "sending" fails: it is retried, and "sent" waits behind it.
    let failedOnce = false;
    receiver.respond = (received) => {
      if (!failedOnce && new URLSearchParams(received.body).get('MessageStatus') === 'sending') {
        failedOnce = true;
        return 500;
      }
      return 204;
    };
    const phone = await fx.connectDevice();
    const message = await twilioClient(fx.baseUrl, credential).messages.create({ to: TO, body: 'tell me how it goes', statusCallback: receiver.url });
    const delivered = await receiver.waitFor(4, (received) => received.status === 204);
    expect(delivered.map((received) => paramsOf(received).MessageStatus)).to.deep.equal(['queued', 'sending', 'sent', 'delivered']);
    const failed = receiver.received.filter((received) => received.status === 500);
    expect(failed).to.have.length(1);
    // The retry is the same request: the same idempotency token.
    expect(delivered[1]!.headers['i-twilio-idempotency-token']).to.equal(failed[0]!.headers['i-twilio-idempotency-token']).and.match(/^[0-9a-f-]{36}$/);
    for (const received of receiver.received) {
      expect(received.headers['content-type']).to.equal('application/x-www-form-urlencoded');
      expect(validates(credential.auth_token, received, receiver.url), received.body).to.equal(true);
      expect(paramsOf(received)).to.include({ MessageSid: message.sid, AccountSid: credential.account_sid, To: TO });
    }
    expect(paramsOf(delivered[3]!)).to.include({ From: phone.id });
    expect(paramsOf(delivered[3]!)).not.to.have.property('ErrorCode');

    // Tampered with (another status, another URL, another token), the library refuses it.
    const last = delivered[3]!;
    const forged = { ...last, body: last.body.replace('MessageStatus=delivered', 'MessageStatus=failed') };
    expect(validates(credential.auth_token, forged, receiver.url)).to.equal(false);
    expect(validates(credential.auth_token, last, receiver.url.replace('/hook', '/other'))).to.equal(false);
    expect(validates('0'.repeat(32), last, receiver.url)).to.equal(false);
  });

  it('a cancelled message calls back canceled; a failed one carries ErrorCode', async () => {
    const client = twilioClient(fx.baseUrl, credential);
    const created = await client.messages.create({ to: TO, body: 'cancel me', statusCallback: receiver.url });
    await client.messages(created.sid).update({ status: 'canceled' });
    const calls = await receiver.waitFor(2);
    expect(calls.map((received) => paramsOf(received).MessageStatus)).to.deep.equal(['queued', 'canceled']);

    await fx.connectDevice({ failSendRate: 1 });
    const failing = await client.messages.create({ to: TO, body: 'this one fails', statusCallback: receiver.url });
    const failed = await receiver.waitFor(1, (received) => paramsOf(received).MessageSid === failing.sid && paramsOf(received).MessageStatus === 'failed');
    expect(paramsOf(failed[0]!).ErrorCode).to.match(/^300\d\d$/);
    expect(validates(credential.auth_token, failed[0]!, receiver.url)).to.equal(true);
  });

  it('a StatusCallback the gateway disabled (410 Gone) is called again for the next message naming it', async () => {
    receiver.respond = (_, index) => (index === 0 ? 410 : 204);
    const client = twilioClient(fx.baseUrl, credential);
    await client.messages.create({ to: TO, body: 'gone', statusCallback: receiver.url });
    await eventually('the callback disabled', async () =>
      (await hasDisabledTwilioCallback(fx, fx.tenant.accountId)) ? true : undefined,
    );
    const next = await client.messages.create({ to: TO, body: 'back', statusCallback: receiver.url });
    const [queued] = await receiver.waitFor(1, (received) => received.status === 204 && paramsOf(received).MessageSid === next.sid);
    expect(paramsOf(queued!).MessageStatus).to.equal('queued');
  });

  it('after a rotation the callbacks are signed with the new token', async () => {
    const rotated = await fx.tenant.api.post(`/twilio/credentials/${credential.account_sid}/rotate`);
    const fresh = rotated.body.auth_token as string;
    await twilioClient(fx.baseUrl, { ...credential, auth_token: fresh }).messages.create({ to: TO, body: 'signed anew', statusCallback: receiver.url });
    const [queued] = await receiver.waitFor(1);
    expect(validates(fresh, queued!, receiver.url)).to.equal(true);
    expect(validates(credential.auth_token, queued!, receiver.url)).to.equal(false);
  });

  it('an SMS made with the Extended API calls no StatusCallback; webhooks of the Twilio format stay out of the webhook API', async () => {
    await fx.connectDevice();
    const plain = await fx.tenant.api.post('/sms', { phone: TO, message: 'no callback' });
    expect(plain.status).to.equal(201);
    const message = await twilioClient(fx.baseUrl, credential).messages.create({ to: TO, body: 'with a callback', statusCallback: receiver.url });
    await receiver.waitFor(4);
    await eventually('the plain SMS delivered', async () => ((await fx.tenant.api.get(`/sms/${plain.body.id}`)).body.status === 'delivered' ? true : undefined));
    expect(new Set(receiver.received.map((received) => paramsOf(received).MessageSid))).to.deep.equal(new Set([message.sid]));
    expect((await fx.tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
  });

  it('posts an incoming SMS to sms_url, signed; a TwiML <Message> answer is sent through the phone that received it', async () => {
    receiver.respond = () => 200;
    receiver.answerBody = () => '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Thanks &amp; goodbye</Message></Response>';
    const inbound = await createCredential(fx.tenant, { sms_url: receiver.url });
    const phone = await fx.connectDevice();
    const other = await fx.connectDevice();
    const patched = await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true });
    expect(patched.status).to.equal(200);
    const tasks: { phone: string; message: string }[] = [];
    phone.on('task', (task) => tasks.push(task as never));
    other.on('task', () => expect.fail('the reply must go through the phone that received the SMS'));
    await phone.receive(SENDER, 'hello gateway');

    const [received] = await receiver.waitFor(1);
    const params = paramsOf(received!);
    expect(params).to.include({ From: SENDER, To: phone.id, Body: 'hello gateway', AccountSid: inbound.account_sid, NumMedia: '0' });
    expect(params.MessageSid).to.match(/^SM[0-9a-f]{32}$/);
    expect(validates(inbound.auth_token, received!, receiver.url)).to.equal(true);
    expect(validates(inbound.auth_token, { ...received!, body: received!.body.replace('hello', 'HELLO') }, receiver.url)).to.equal(false);

    await eventually('the TwiML reply sent', async () => (tasks.length > 0 ? true : undefined));
    expect(tasks[0]).to.include({ phone: SENDER, message: 'Thanks & goodbye' });
    const sms = await fx.tenant.api.get('/sms');
    const replies = sms.body.data.filter((row: { message: string }) => row.message === 'Thanks & goodbye');
    expect(replies).to.have.length(1);
    expect(replies[0].device_id).to.equal(phone.id);
  });
});
