// How the gateway encodes the text of a deliver_sm (a receipt, an incoming SMS): GSM-7, one
// septet per octet (data_coding 0), when every character has a GSM-7 form, else UCS-2 (8). The
// alphabet is the phone agent's (agent/src/pdu/), so both ends agree on what fits. A text too
// long for short_message (254 octets) travels in the message_payload TLV.
import { encodeGsm7 } from '../../agent/src/pdu/gsm7-alphabet.ts';

export const SHORT_MESSAGE_MAX_OCTETS = 254;

export interface EncodedText {
  data_coding: number;
  short_message?: Buffer;
  message_payload?: Buffer;
}

export function encodeDeliverText(text: string): EncodedText {
  const septets = encodeGsm7(text);
  const octets = septets ? Buffer.from(septets) : Buffer.from(text, 'utf16le').swap16();
  const data_coding = septets ? 0 : 8;
  if (octets.length <= SHORT_MESSAGE_MAX_OCTETS) return { data_coding, short_message: octets };
  return { data_coding, short_message: Buffer.alloc(0), message_payload: octets };
}
