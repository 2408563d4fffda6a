// Sends one SMS with termux-sms-send.
//
// The script's form is `termux-sms-send -n number[,number...] [-s slot] [text...]`; without text
// arguments it reads the text from standard input. The text is always given on standard input:
// as arguments the script would re-join them with `echo "$@"`, whose echo (Termux's sh is dash)
// reads a leading "-n" as its own option and turns backslash sequences such as \n or \c into
// other characters; a text starting with "-" would also be read as an option by the script's
// getopts unless after "--". Standard input
// reaches the Termux:API app byte for byte, which then trims white space at both ends (that much
// cannot be helped) and splits the text into parts itself.
//
// What comes back: nothing on success. A missing permission prints `{"error": "Please grant..."}`
// with exit status 0; a script error exits non-zero with a message. Android's own send result is
// never reported (a slot that does not exist is silently ignored by the app, for instance), and
// there are no delivery reports, so success means "handed to Android's SMS manager".
import type { OutgoingSms, SendResult } from '../radio.ts';
import type { SendErrorCode } from '../send-error-codes.ts';
import { runTermuxCommand, TermuxCommandError, type CommandSettings } from './run-termux-command.ts';
import { termuxRefusal } from './termux-json.ts';
import { scrubPhoneNumbers } from './scrub.ts';

export const SMS_SEND_COMMAND = 'termux-sms-send';

// The script splits the number at commas and, unquoted, at white space: only + and digits pass.
const SENDABLE_NUMBER = /^\+?\d{1,20}$/;

export interface SendContext {
  /** SIM slots the phone has, when a status read found out; a slot beyond them is refused here. */
  slotCount: number | undefined;
}

export async function sendSms(settings: CommandSettings, sms: OutgoingSms, context: SendContext): Promise<SendResult> {
  if (!SENDABLE_NUMBER.test(sms.phone)) return { ok: false, error: 'the number is not + and digits, which termux-sms-send needs', errorCode: 'invalid_number' };
  if (sms.message.trim() === '') return { ok: false, error: 'the message is empty once trimmed, as Termux:API trims it', errorCode: 'invalid_message' };
  const slot = sms.simSlot;
  if (slot !== undefined && (!Number.isInteger(slot) || slot < 0)) return { ok: false, error: `SIM slot ${slot} is not a slot number`, errorCode: 'sim_unavailable' };
  // Termux:API drops an SMS for a slot that does not exist without a word, so it is refused here.
  if (slot !== undefined && context.slotCount !== undefined && slot >= context.slotCount) {
    return { ok: false, error: `SIM slot ${slot} does not exist: the phone has ${context.slotCount}`, errorCode: 'sim_unavailable' };
  }

  const args = ['-n', sms.phone, ...(slot === undefined ? [] : ['-s', String(slot)])];
  try {
    const { stdout } = await runTermuxCommand(settings, SMS_SEND_COMMAND, args, sms.message);
    const refusal = refusalIn(stdout);
    // A refusal (a missing permission, mostly) comes before Android has the SMS: another phone may send it.
    if (refusal !== undefined) return { ok: false, error: `${SMS_SEND_COMMAND}: ${refusal}`, errorCode: 'radio_unavailable' };
    return slot === undefined ? { ok: true, references: [] } : { ok: true, simSlot: slot, references: [] };
  } catch (error) {
    if (error instanceof TermuxCommandError) return { ok: false, error: error.message, errorCode: TERMUX_SEND_ERRORS[error.reason] };
    return { ok: false, error: `${SMS_SEND_COMMAND}: ${error instanceof Error ? scrubPhoneNumbers(error.message) : 'failed'}`, errorCode: 'send_unconfirmed' };
  }
}

// What the gateway hears when the command itself fails. Missing or exiting with an error, it never
// handed the SMS to Android, so another phone may send it; killed after the timeout, it may have,
// and a second try could send it twice.
const TERMUX_SEND_ERRORS: Record<TermuxCommandError['reason'], SendErrorCode> = {
  missing: 'radio_unavailable',
  failed: 'radio_unavailable',
  no_answer: 'send_unconfirmed',
};

/** The app's error answer, or any unexpected output (the command prints nothing when it worked). */
function refusalIn(stdout: string): string | undefined {
  const text = stdout.trim();
  if (text === '') return undefined;
  try {
    const refusal = termuxRefusal(JSON.parse(text));
    if (refusal !== undefined) return refusal;
  } catch {
    // Not JSON: a usage message from the script, reported as it is.
  }
  return scrubPhoneNumbers(text.split('\n')[0] ?? '').slice(0, 300);
}
