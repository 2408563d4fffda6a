// How a text is put into submit_sm: GSM-7 (data_coding 0, one septet an octet, as SMSCs take it
// over SMPP) when every character is in the GSM 7-bit default alphabet or its extension table,
// else UCS-2 (data_coding 8, big-endian). A text longer than one SMS goes in parts, each starting
// with a user data header naming the reference, the count and its place (esm_class 0x40). The
// cut is the phones' own (agent/src/pdu/split-text.ts): 153 septets or 67 UTF-16 units a part,
// never inside an escape pair or a surrogate pair, so what the API counted is what goes out.
import { encodeGsm7 } from '../../../../../agent/src/pdu/gsm7-alphabet.ts';
import { splitText, type TextEncoding } from '../../../../../agent/src/pdu/split-text.ts';

export const DATA_CODING_GSM7 = 0;
export const DATA_CODING_LATIN1 = 3;
export const DATA_CODING_UCS2 = 8;
/** esm_class bit 6: short_message starts with a user data header. */
export const ESM_CLASS_UDH = 0x40;
/** Information element 0x00: concatenated short message, 8-bit reference. */
const CONCATENATION_8BIT = 0x00;

export interface OutgoingText {
  encoding: TextEncoding;
  dataCoding: number;
  /** The esm_class of every part: 0x40 when the text goes in parts. */
  esmClass: number;
  /** Each part's short_message, header included. */
  parts: Buffer[];
}

/** `reference`: the concatenation reference (0-255), the same in every part of this text. */
export function encodeOutgoingText(text: string, reference: number): OutgoingText {
  const { encoding, parts } = splitText(text);
  const dataCoding = encoding === 'gsm7' ? DATA_CODING_GSM7 : DATA_CODING_UCS2;
  const bodies = parts.map((part) => (encoding === 'gsm7' ? Buffer.from(encodeGsm7(part)!) : ucs2(part)));
  if (bodies.length === 1) return { encoding, dataCoding, esmClass: 0, parts: bodies };
  const ref = reference & 0xff;
  const headed = bodies.map((body, index) => Buffer.concat([Buffer.from([5, CONCATENATION_8BIT, 3, ref, bodies.length, index + 1]), body]));
  return { encoding, dataCoding, esmClass: ESM_CLASS_UDH, parts: headed };
}

function ucs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}
