// The call log's webhook events, written to the outbox in the transaction that stores their row
// (as a received SMS becomes sms.received), so a stored call always has its deliveries and a
// repeated report never makes a second one:
// - a missed call becomes call.missed;
// - a stored recording becomes call.recorded, carrying the call with its recording's metadata and
//   the path to download the audio (with calls:read), never the audio itself.
import type { EventListeners } from '../../events/domain-events.ts';
import type { WebhookOutbox } from '../webhooks/ordering/outbox.ts';
import type { WebhookSender } from '../webhooks/outbound/sender.ts';
import type { CallsEvents } from './domain-events.ts';
import { presentCall, recordingDownloadPath } from './presenter.ts';
import { callMissed, callRecorded } from './webhook-events.ts';

export function callWebhookListeners(outbox: WebhookOutbox, sender: WebhookSender): EventListeners<CallsEvents> {
  // The sender is woken once the rows it should find are committed, when there are any: the
  // events that wrote some are remembered (an event is heard with the same payload both times).
  const withDeliveries = new WeakSet<object>();
  return {
    'call.stored': {
      inTransaction: async (trx, call) => {
        if (call.direction !== 'missed') return;
        // Just stored: a new call has no recording yet.
        if ((await outbox.record(trx, [{ envelope: callMissed(call.account_id, presentCall(call, undefined)) }])) > 0) withDeliveries.add(call);
      },
      committed: (call) => void (withDeliveries.has(call) && sender.wake()),
    },
    'recording.stored': {
      inTransaction: async (trx, stored) => {
        const envelope = callRecorded(stored.call.account_id, presentCall(stored.call, stored.recording), recordingDownloadPath(stored.call.id));
        if ((await outbox.record(trx, [{ envelope }])) > 0) withDeliveries.add(stored);
      },
      committed: (stored) => void (withDeliveries.has(stored) && sender.wake()),
    },
  };
}
