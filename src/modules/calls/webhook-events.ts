// The call log's webhook bodies (call.missed, call.recorded).
import { envelope, type EventEnvelope } from '../webhooks/event-contract.ts';
import type { CallView } from './presenter.ts';

/** A phone reported a missed call. */
export function callMissed(accountId: string, call: CallView): EventEnvelope {
  return envelope('call.missed', accountId, { call });
}

/** A call's recording was uploaded: its metadata and where to download it, never the audio itself. */
export function callRecorded(accountId: string, call: CallView, downloadPath: string): EventEnvelope {
  return envelope('call.recorded', accountId, { call, download_path: downloadPath });
}
