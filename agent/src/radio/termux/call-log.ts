// The call log as termux-call-log prints it, turned into ReceivedCall.
//
// `termux-call-log -l <limit> -o <offset>` prints a JSON list of the newest calls (Android sorts
// by date, newest first; Termux:API prints the page reversed, newest last). Each element, as
// Termux:API's CallLogAPI writes it:
//   { "name": "Contact name" or "UNKNOWN_CALLER", "phone_number": "+4917...",
//     "type": "INCOMING" | "OUTGOING" | "MISSED" | "REJECTED" | "BLOCKED" | "VOICEMAIL" | "UNKNOWN_TYPE",
//     "date": "2024-05-01 13:45:10" (local time, when the call started),
//     "duration": "01:05" (MM:SS, or HH:MM:SS from an hour on), "sim_id": "<phone account id>" }
// Relied on: phone_number, type, date, duration. sim_id is Android's phone account id (often the
// SIM's ICCID or subscription id), not a slot number, so no slot is reported.
import type { ReceivedCall } from '../radio.ts';
import { runTermuxCommand, type CommandSettings } from './run-termux-command.ts';
import { parseTermuxArray, stringField, type JsonObject } from './termux-json.ts';
import { parseTermuxDuration, parseTermuxLocalTime } from './termux-time.ts';
import { shortHash } from './short-hash.ts';

export const CALL_LOG_COMMAND = 'termux-call-log';

/** A call log entry; `call` is undefined for a type the gateway has no word for. */
export interface CallLogEntry {
  key: string;
  call: ReceivedCall | undefined;
  type: string;
}

export async function readCallLogPage(settings: CommandSettings, offset: number, limit: number): Promise<CallLogEntry[]> {
  const args = ['-l', String(limit), '-o', String(offset)];
  const { stdout } = await runTermuxCommand(settings, CALL_LOG_COMMAND, args);
  return parseTermuxArray(CALL_LOG_COMMAND, stdout).map(toCallLogEntry);
}

/**
 * The gateway knows incoming (answered), outgoing and missed. A rejected or blocked call rang and
 * was not taken, and a call sent to voicemail was not answered by the phone either: all missed.
 */
export function callDirection(type: string): ReceivedCall['direction'] | undefined {
  switch (type) {
    case 'INCOMING':
      return 'incoming';
    case 'OUTGOING':
      return 'outgoing';
    case 'MISSED':
    case 'REJECTED':
    case 'BLOCKED':
    case 'VOICEMAIL':
      return 'missed';
    default:
      return undefined;
  }
}

function toCallLogEntry(row: JsonObject): CallLogEntry {
  const phone = stringField(row, 'phone_number') ?? '';
  const type = stringField(row, 'type') ?? 'UNKNOWN_TYPE';
  const dateText = stringField(row, 'date') ?? '';
  const durationText = stringField(row, 'duration') ?? '';
  // The call log has no row id in this output; these fields do not change once a call is logged
  // (the contact name does, so it is left out).
  const key = `call-${shortHash([dateText, phone, type, durationText])}`;
  const direction = callDirection(type);
  const call: ReceivedCall | undefined =
    direction === undefined
      ? undefined
      : {
          id: key,
          direction,
          phone,
          startedAt: parseTermuxLocalTime(dateText) ?? new Date(),
          durationSeconds: parseTermuxDuration(durationText) ?? 0,
        };
  return { key, call, type };
}
