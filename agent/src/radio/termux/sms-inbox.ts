// The SMS inbox as termux-sms-list prints it, turned into ReceivedSms.
//
// `termux-sms-list -t inbox -l <limit> -o <offset>` prints a JSON list of the newest inbox SMS
// (Android sorts by date, newest first, applies offset and limit, and Termux:API prints the result
// reversed, newest last). Each element, as Termux:API's SmsInboxAPI writes it:
//   { "threadid": 3, "type": "inbox", "read": true, "sender": "Contact name" (only for a contact),
//     "address": "+4917...", "number": "+4917..." (older name of address),
//     "received": "2024-05-01 13:45:10" (local time), "body": "...", "_id": 1234 }
// Relied on: address (else number), body, received, and _id when present (older Termux:API
// versions did not print it). Android joins the parts of a long SMS before storing it.
// Only -t, -l and -o are used: older versions of the script know them too, while its long options
// (a SQL selection, a sort order) are recent; -d and -n only survive for old callers and change
// nothing in the output of current versions.
import type { ReceivedSms } from '../radio.ts';
import { runTermuxCommand, type CommandSettings } from './run-termux-command.ts';
import { numberField, parseTermuxArray, stringField, type JsonObject } from './termux-json.ts';
import { parseTermuxLocalTime } from './termux-time.ts';
import { shortHash } from './short-hash.ts';

export const SMS_LIST_COMMAND = 'termux-sms-list';

export async function readInboxPage(settings: CommandSettings, offset: number, limit: number): Promise<InboxSms[]> {
  const args = ['-t', 'inbox', '-l', String(limit), '-o', String(offset)];
  const { stdout } = await runTermuxCommand(settings, SMS_LIST_COMMAND, args);
  const received = parseTermuxArray(SMS_LIST_COMMAND, stdout)
    .filter((row) => (stringField(row, 'type') ?? 'inbox') === 'inbox')
    .map(toReceivedSms);
  // The Android row id grows with each stored SMS, so it orders them even when the phone's clock
  // jumped; without it, the order Termux:API printed them in (oldest first) is kept.
  return received.some((sms) => sms.androidId === undefined)
    ? received
    : [...received].sort((a, b) => (a.androidId ?? 0) - (b.androidId ?? 0));
}

export interface InboxSms extends ReceivedSms {
  androidId: number | undefined;
}

function toReceivedSms(row: JsonObject): InboxSms {
  const phone = stringField(row, 'address') ?? stringField(row, 'number') ?? '';
  const message = stringField(row, 'body') ?? '';
  const receivedText = stringField(row, 'received') ?? '';
  const androidId = numberField(row, '_id');
  // Android reuses the row id of a deleted newest SMS, so the id also carries a fingerprint of the
  // content: the next SMS stored under that row id is then not taken for the deleted one.
  const id =
    androidId === undefined
      ? `sms-${shortHash([phone, receivedText, message])}`
      : `sms-${androidId}-${shortHash([phone, message], 8)}`;
  return {
    id,
    androidId,
    phone,
    message,
    // A time in an unexpected form (another locale's digits) is not worth losing the SMS over.
    receivedAt: parseTermuxLocalTime(receivedText) ?? new Date(),
  };
}
