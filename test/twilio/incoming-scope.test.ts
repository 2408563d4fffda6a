// Incoming SMS and several Twilio credentials: a credential scoped to devices hears only the SMS
// those phones receive, and an incoming SMS heard by two unscoped credentials whose sms_url both
// answer TwiML is replied to once (the first answer's <Message>; the other is recorded unsent).
import { expect } from 'chai';
import twilio from 'twilio';
import { useGateway } from '../support/use-gateway.ts';
import type { Received } from '../support/receiver.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { createCredential } from './support.ts';
import { hasPendingDelivery, twilioRepliesOf } from '../support/test-data.ts';

const SENDER = '+79005550101';
/** A receiver's TwiML answer, as twilio-node writes it. */
function twiml(text: string): string {
  const answer = new twilio.twiml.MessagingResponse();
  answer.message(text);
  return answer.toString();
}

function paramsOf(received: Received): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(received.body));
}

describe('twilio: which sms_url hears an incoming SMS, and one reply to it', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  it('sends one reply when two credentials answer the same incoming SMS with TwiML', async function () {
    this.timeout(60_000);
    const first = await fx.receiver();
    const second = await fx.receiver();
    first.respond = second.respond = () => 200;
    first.answerBody = () => twiml('reply from the first');
    second.answerBody = () => twiml('reply from the second');
    const credentials = [await createCredential(fx.tenant, { sms_url: first.url }), await createCredential(fx.tenant, { sms_url: second.url })];
    const phone = await fx.connectDevice();
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    await phone.receive(SENDER, 'who answers?');
    // Each sms_url heard it, signed with its own credential's token, as twilio-node checks.
    for (const [index, receiver] of [first, second].entries()) {
      const [heard] = await receiver.waitFor(1);
      expect(twilio.validateRequest(credentials[index]!.auth_token, String(heard!.headers['x-twilio-signature']), receiver.url, paramsOf(heard!))).to.equal(true);
    }
    // Both answers were acted on: each is recorded, one of them sent. (Only this account's: the
    // database may hold other suites' answers.)
    const answers = await eventually('both answers recorded', async () => {
      const rows = await twilioRepliesOf(fx, fx.tenant.accountId);
      return rows.length === 2 ? rows : undefined;
    });
    expect(answers.filter((row: { sent: boolean }) => row.sent)).to.have.length(1);
    const replies = await eventually('the reply stored', async () => {
      const sms = await fx.tenant.api.get('/sms');
      const found = sms.body.data.filter((row: { message: string }) => row.message.startsWith('reply from the'));
      return found.length > 0 ? found : undefined;
    });
    expect(replies).to.have.length(1);
    expect(replies[0]).to.include({ phone: SENDER, device_id: phone.id });
  });

  it('posts an incoming SMS only to the credentials scoped to its device (or to none)', async function () {
    this.timeout(60_000);
    const phoneA = await fx.connectDevice();
    const phoneB = await fx.connectDevice();
    for (const phone of [phoneA, phoneB]) expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    const [toA, toB, toAll] = [await fx.receiver(), await fx.receiver(), await fx.receiver()];
    const scopedA = await createCredential(fx.tenant, { sms_url: toA.url, device_ids: [phoneA.id] });
    expect(scopedA).to.deep.include({ device_ids: [phoneA.id] });
    await createCredential(fx.tenant, { sms_url: toB.url, device_ids: [phoneB.id] });
    await createCredential(fx.tenant, { sms_url: toAll.url });
    await phoneA.receive(SENDER, 'to A');
    await phoneB.receive(SENDER, 'to B');
    const all = await toAll.waitFor(2);
    expect(all.map((received) => paramsOf(received).Body).sort()).to.deep.equal(['to A', 'to B']);
    const [heardByA] = await toA.waitFor(1);
    const [heardByB] = await toB.waitFor(1);
    expect(paramsOf(heardByA!)).to.include({ Body: 'to A', To: phoneA.id });
    expect(paramsOf(heardByB!)).to.include({ Body: 'to B', To: phoneB.id });
    // Every delivery has been sent by now (toAll heard both): a scoped one heard nothing else.
    await eventually('no delivery of the account left pending', async () => ((await hasPendingDelivery(fx, fx.tenant.accountId)) ? undefined : true));
    expect(toA.received).to.have.length(1);
    expect(toB.received).to.have.length(1);
  });

  it('refuses device_ids that are not ids (400) or name no device of the account (404 device_not_found)', async () => {
    expect((await fx.tenant.api.post('/twilio/credentials', { device_ids: ['not-an-id'] })).status).to.equal(400);
    const theirs = await fx.connectDevice({}, await fx.newTenant());
    const refused = await fx.tenant.api.post('/twilio/credentials', { device_ids: [theirs.id] });
    expect(refused.status).to.equal(404);
    expect(refused.body.error).to.include({ code: 'device_not_found' });
  });
});
