// Retention reaches the copies of a message beside its row: a webhook delivery repeats the text
// and number of the event it carried, so once the account's keep_text_days have passed, a
// finished delivery leaves the delivery log; with hash_recipients the call log keeps its calls
// (times, durations) with their numbers hashed.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { UNPACED } from '../support/task-phone.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { PhoneTraffic } from './phone-traffic.ts';
import { RecordingPhone } from '../calls/recording-fixture.ts';
import { recipientSalt } from '../support/test-data.ts';

const DAY = 24 * 3600 * 1000;
const CUSTOMER = '+79005550151';

describe('retention: webhook deliveries and the call log', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: { webhooks: webhookConfig() } });

  it('when a delivered webhook and a call are older than the account keeps text, then the delivery is gone and the call\'s number is a hash', async () => {
    const receiver = await fx.receiver();
    const { webhook } = await createWebhook(fx.tenant, receiver.url, ['sms.received']);
    const traffic = new PhoneTraffic(fx.tenant, await fx.taskPhone({ ...UNPACED, forward_incoming_sms: true }));
    await traffic.receive(CUSTOMER, 'secret words');
    await receiver.waitFor(1);
    const deliveries = () => fx.tenant.api.get(`/webhooks/${webhook.id}/deliveries`).then((reply) => reply.body.data as { status: string }[]);
    await eventually('the delivery recorded as delivered', async () => (await deliveries())[0]?.status === 'delivered');
    const caller = await RecordingPhone.connect(fx, { recordCalls: false });
    await caller.reportCall();
    const [call] = (await fx.tenant.api.get('/calls')).body.data;
    expect(call.phone).to.equal('+79005550101');

    expect((await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 7, hash_recipients: true })).status).to.equal(200);
    const salt = await recipientSalt(fx, fx.tenant.accountId);
    clock.advance(8 * DAY);
    const outcome = await fx.gateway.services.retentionSweep.runOnce();
    expect(outcome).to.include({ webhook_deliveries: 1, calls: 1 });

    expect(await deliveries()).to.deep.equal([]);
    const after = (await fx.tenant.api.get(`/calls/${call.id}`)).body;
    expect(after).to.include({ id: call.id, phone: `hmac:${createHmac('sha256', salt).update('+79005550101').digest('hex')}`, duration_seconds: 12 });
  });
});
