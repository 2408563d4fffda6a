// Sending one SMS: one AT+CMGS per part, in order, collecting the message reference the network
// gives each. The first refused part ends the send: what went out before it cannot be called back,
// and nothing is sent twice.
import { encodeDataSubmit, encodeSubmit, PduFormatError, type DataSubmitRequest, type SubmitRequest } from '../../pdu/index.ts';
import type { SendResult } from '../radio.ts';
import type { SendErrorCode } from '../send-error-codes.ts';
import type { AtChannel } from './at-channel.ts';
import { AtChannelClosedError, AtCommandError, AtTimeoutError } from './at-errors.ts';
import { parseMessageReference } from './responses.ts';

export interface SendOptions {
  /** How long one part may take, prompt and network included. */
  timeoutMs: number;
  /** The modem hands status reports over; otherwise no reference is promised. */
  deliveryReports: boolean;
}

export async function sendParts(channel: AtChannel, request: SubmitRequest | DataSubmitRequest, options: SendOptions): Promise<SendResult> {
  let parts;
  try {
    // A data SMS is one part; a text as many as it needs.
    parts = 'bytes' in request ? [encodeDataSubmit(request)] : encodeSubmit(request).parts;
  } catch (error) {
    if (error instanceof PduFormatError) return { ok: false, error: `cannot encode the SMS: ${error.message}`, errorCode: 'invalid_message' };
    throw error;
  }
  const references: number[] = [];
  for (const [index, part] of parts.entries()) {
    try {
      const lines = await channel.commandWithPdu(`AT+CMGS=${part.tpduLength}`, part.pdu, { timeoutMs: options.timeoutMs });
      const reference = parseMessageReference(lines);
      if (reference !== undefined) references.push(reference);
    } catch (error) {
      // The modem's one SIM failed it: named, so that a retry goes to a SIM that has not (another phone's).
      return { ok: false, error: describeFailure(error, index, parts.length), errorCode: failureCode(error, index), simSlot: 0 };
    }
  }
  const reported = request.statusReport && options.deliveryReports && references.length === parts.length;
  return reported ? { ok: true, simSlot: 0, references } : { ok: true, simSlot: 0 };
}

/**
 * What the gateway hears, and so whether it tries again. Once a part went out a second try would
 * send it twice, so the refusal of a later part is final, whatever the modem said; so is a send
 * the modem stopped answering in the middle of, which may or may not have gone out.
 */
function failureCode(error: unknown, index: number): SendErrorCode {
  if (index > 0) return 'partly_sent';
  if (error instanceof AtCommandError) return error.sendErrorCode;
  return 'send_unconfirmed';
}

function describeFailure(error: unknown, index: number, total: number): string {
  const which = total > 1 ? `part ${index + 1} of ${total}` : 'the SMS';
  const before = index > 0 ? `; ${index === 1 ? 'part 1' : `parts 1-${index}`} went out` : '';
  if (error instanceof AtCommandError) return `${error.description}${total > 1 ? ` (${which}${before})` : ''}`;
  if (error instanceof AtTimeoutError) {
    return `the modem stopped answering while sending ${which}; it may or may not have gone out${before}`;
  }
  if (error instanceof AtChannelClosedError) return `the modem port closed while sending ${which} (${error.message})${before}`;
  return `sending ${which} failed: ${error instanceof Error ? error.message : String(error)}${before}`;
}
