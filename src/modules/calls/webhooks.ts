// The call log's webhook event: a missed call becomes call.missed, written to the outbox in the
// transaction that stores the call (as a received SMS becomes sms.received), so a stored call
// always has its deliveries and a repeated report never makes a second one.
import { afterCommit } from '../../storage/database.ts';
import type { WebhookOutbox } from '../webhooks/outbox.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import { callMissed } from '../webhooks/events.ts';
import { presentCall } from './presenter.ts';
import type { CallService } from './service.ts';

export function wireCallWebhooks(calls: CallService, outbox: WebhookOutbox, sender: WebhookSender): void {
  calls.onStored = async (trx, call) => {
    if (call.direction !== 'missed') return;
    // Just stored: a new call has no recording yet.
    if ((await outbox.record(trx, [{ envelope: callMissed(call.account_id, presentCall(call, undefined)) }])) > 0) afterCommit(trx, () => sender.wake());
  };
}
