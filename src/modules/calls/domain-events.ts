// What the calls module announces to the rest of the gateway (src/events/domain-events.ts).
import type { CallRow, RecordingRow } from './types.ts';

export interface CallsEvents {
  /** A call was stored (not a repeat); written in its transaction. */
  'call.stored': CallRow;
  /** A call's recording was stored; written in its transaction. */
  'recording.stored': { call: CallRow; recording: RecordingRow };
  /** A call left the log (deleted, or its phone was); committed. What lives outside the database may follow. */
  'call.deleted': { call: CallRow; recording: RecordingRow | undefined };
}
