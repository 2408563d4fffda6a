import type { Static } from '@sinclair/typebox';
import type { CallRow, RecordingRow } from './repository.ts';
import type { CallView as CallViewSchema } from './schema.ts';

/** A call as the Extended API and the call webhook events show it. */
export type CallView = Static<typeof CallViewSchema>;

/** Where the audio of a call is downloaded (Extended API); webhooks carry this, never the audio. */
export function recordingDownloadPath(callId: string): string {
  return `/api/ext/v1/calls/${callId}/recording`;
}

export function presentCall(call: CallRow, recording: RecordingRow | undefined): CallView {
  return {
    id: call.id,
    device_id: call.device_id,
    device_call_id: call.device_call_id,
    direction: call.direction,
    phone: call.phone,
    sim_slot: call.sim_slot,
    started_at: call.started_at.toISOString(),
    duration_seconds: call.duration_seconds,
    created_at: call.created_at.toISOString(),
    recording: recording
      ? {
          // bigint comes back from the driver as a string: sizes fit a JS number by far.
          size_bytes: Number(recording.size_bytes),
          content_type: recording.content_type,
          duration_seconds: recording.duration_seconds,
          sha256: recording.sha256,
          created_at: recording.created_at.toISOString(),
          download_path: recordingDownloadPath(call.id),
        }
      : null,
  };
}
