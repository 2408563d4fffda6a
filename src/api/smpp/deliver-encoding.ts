// How the gateway encodes the text of a deliver_sm (a receipt, an incoming SMS): in the
// credential's default alphabet with data_coding 0 when every character has a form there, else
// UCS-2 (8). GSM-7 is one septet per octet, with the phone agent's alphabet (agent/src/pdu/), so
// both ends agree on what fits; ascii is 7-bit; latin1 is ISO-8859-1. A text too long for
// short_message (254 octets) travels in the message_payload TLV.
import { encodeGsm7 } from '../../../agent/src/pdu/gsm7-alphabet.ts';
import type { DefaultAlphabet } from '../../modules/smpp/types.ts';

export const SHORT_MESSAGE_MAX_OCTETS = 254;

export interface EncodedText {
  data_coding: number;
  short_message?: Buffer;
  message_payload?: Buffer;
}

export function encodeDeliverText(text: string, defaultAlphabet: DefaultAlphabet): EncodedText {
  const inDefault = inDefaultAlphabet(text, defaultAlphabet);
  const octets = inDefault ?? Buffer.from(text, 'utf16le').swap16();
  const data_coding = inDefault ? 0 : 8;
  if (octets.length <= SHORT_MESSAGE_MAX_OCTETS) return { data_coding, short_message: octets };
  return { data_coding, short_message: Buffer.alloc(0), message_payload: octets };
}

/** The text in the default alphabet, or undefined when a character has no form there. */
function inDefaultAlphabet(text: string, alphabet: DefaultAlphabet): Buffer | undefined {
  if (alphabet === 'gsm7') {
    const septets = encodeGsm7(text);
    return septets ? Buffer.from(septets) : undefined;
  }
  const highest = alphabet === 'ascii' ? 0x7f : 0xff;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > highest) return undefined;
  return Buffer.from(text, 'latin1');
}
