// A status change of an SMS made through the Twilio API writes two kinds of webhook delivery: the
// standard event for the account's webhooks and the StatusCallback. Both go in one outbox write,
// which locks the pending deliveries of their chains in one pass, in chain order, as the sender
// does when it records outcomes. Here a transaction of the test's own stands for that sender: it
// holds the chain of the lower webhook id (the StatusCallback's, when the ids fall so) while the
// report is written, then takes the other. Written in two passes, the report would already hold that second
// chain and wait for the first: a deadlock, which PostgreSQL breaks by rolling one side back.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks, topic } from '../support/mqtt.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { testDatabase } from '../support/environment.ts';
import { statementWaitsForLock } from '../support/lock-waits.ts';
import { createCredential, twilioClient } from './support.ts';
import { deliveryRowsOfKey, lockPendingDeliveries, pendingDeliveriesOf, twilioMessageOf } from '../support/test-data.ts';

describe('twilio: a StatusCallback and a standard webhook event written beside a sender', function () {
  // Several connections locking rows against each other: PGlite has one connection and no deadlocks.
  if (testDatabase().kind !== 'postgres') return;
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  it('are locked in one pass with the sender\'s order, so neither side is rolled back', async function () {
    this.timeout(30_000);
    const { db } = fx.gateway.services;
    // Deliveries stay pending: the test takes the sender's place.
    await fx.gateway.services.webhookSender.stop();
    const receiver = await fx.receiver();
    const { device, token } = await fx.registerDevice('twilio-lock-order');
    const raw = await fx.clients.device(device.id, token);
    await takeTasks(raw, device.id);

    const credential = await createCredential(fx.tenant);
    const message = await twilioClient(fx.baseUrl, credential).messages.create({ to: '+79161234567', body: 'lock order', statusCallback: receiver.url });
    const { smsId, callbackWebhookId } = await twilioMessageOf(fx, credential.account_sid);
    // The message named a StatusCallback: its webhook is there.
    const callbackWebhook = callbackWebhookId!;
    // The crossing is sharpest with the standard webhook after the StatusCallback's in chain order
    // (a report written in two passes, standard first, would then deadlock). Ids are random: when
    // the StatusCallback's is near the top, twenty tries may find none after it (one run in 21),
    // and the two chains are then taken in their own order, as the sender always takes them.
    let standard = '';
    for (let tries = 0; tries < 20 && standard <= callbackWebhook; tries++) {
      if (standard) await fx.tenant.api.delete(`/webhooks/${standard}`);
      standard = (await createWebhook(fx.tenant, receiver.url, ['sms.status_changed'])).webhook.id;
    }
    const [lower, higher] = [callbackWebhook, standard].sort() as [string, string];

    await nextTask(raw, device.id, smsId);
    await raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'processing' }));
    const pendingOf = (webhookId: string) => pendingDeliveriesOf(fx, webhookId, smsId);
    await eventually('both chains pending', async () => ((await pendingOf(standard)).length > 0 ? true : undefined));

    const sender = await db.transaction();
    let reported: Promise<unknown> = Promise.resolve();
    try {
      // Found at once if this side is the one in a circle (PostgreSQL then rolls it back).
      await sender.raw(`set local deadlock_timeout = '100ms'`);
      await lockPendingDeliveries(sender, lower, smsId);
      reported = raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'sent' }));
      await statementWaitsForLock(db, 'webhook_deliveries');
      await lockPendingDeliveries(sender, higher, smsId);
      await sender.commit();
      await reported;
    } catch (error) {
      await sender.rollback().catch(() => {});
      throw error;
    }

    const written = async () => {
      const rows: { webhook_id: string; body: string }[] = await deliveryRowsOfKey(fx, smsId);
      return {
        standard: rows.filter((row) => row.webhook_id === standard).map((row) => JSON.parse(row.body).data.sms.internal_status),
        callback: rows.filter((row) => row.webhook_id === callbackWebhook).map((row) => new URLSearchParams(row.body).get('MessageStatus')),
      };
    };
    const both = await eventually('the sent events written', async () => {
      const now = await written();
      return now.standard.includes('sent') ? now : undefined;
    });
    expect(both).to.deep.equal({ standard: ['processing', 'sent'], callback: ['queued', 'sending', 'sent'] });
    expect(message.sid).to.be.a('string');
  });
});
