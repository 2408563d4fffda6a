// How many SMS a text is sent as, so a client can see what it will cost before sending. Counted
// as Android phones split a text (SmsMessage.calculateLength / fragmentText): GSM 7-bit if every
// character has a GSM-7 form, else UCS-2. The rules (alphabet, part sizes, never splitting an
// escape pair or a surrogate pair) are the device agent's, which cuts real SMS into parts with
// them: what the API counts is what a modem sends.
import { splitText, textUnits, type TextEncoding } from '../../agent/src/pdu/split-text.ts';

export type SmsEncoding = TextEncoding;

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  /** code units billed: septets for gsm7 (extension chars count 2), UTF-16 units for ucs2 */
  units: number;
}

/** The empty text is gsm7, 0 units, 1 segment: a phone still sends one empty part. */
export function countSegments(text: string): SegmentCount {
  const { encoding, parts } = splitText(text);
  return { encoding, segments: parts.length, units: textUnits(text, encoding) };
}
