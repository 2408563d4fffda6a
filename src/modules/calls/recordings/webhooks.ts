// A stored recording becomes a call.recorded event, written to the outbox in the transaction
// that stores its row: the event carries the call with its recording's metadata and the path to
// download the audio (with calls:read), never the audio itself.
import { afterCommit } from '../../../storage/database.ts';
import type { WebhookOutbox } from '../../webhooks/outbox.ts';
import type { WebhookSender } from '../../webhooks/sender.ts';
import { callRecorded } from '../../webhooks/events.ts';
import { presentCall, recordingDownloadPath } from '../presenter.ts';
import type { RecordingService } from './service.ts';

export function wireRecordingWebhooks(recordings: RecordingService, outbox: WebhookOutbox, sender: WebhookSender): void {
  recordings.onRecorded = async (trx, call, recording) => {
    const envelope = callRecorded(call.account_id, presentCall(call, recording), recordingDownloadPath(call.id));
    if ((await outbox.record(trx, [{ envelope }])) > 0) afterCommit(trx, () => sender.wake());
  };
}
