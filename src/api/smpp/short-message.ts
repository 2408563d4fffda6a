// The text of a submit_sm (or data_sm, submit_multi, replace_sm): from short_message, or from the
// message_payload TLV when short_message is empty, read here from its raw octets in the coding
// its data_coding names (the PDU reader hands them over undecoded: the codec would read 1 as
// GSM-7 and know nothing of the credential's default alphabet).
//   0     the SMSC default alphabet: the credential's default_data_coding (gsm7, ascii, latin1)
//   1     IA5, that is ASCII: 7-bit, an octet above 127 is refused with ESME_RINVDCS
//   3     Latin-1 (ISO-8859-1)
//   8     UCS-2, big-endian
//   0xF0-0xF3  GSM-7 with a message class (GSM 03.38's own coding group, whatever the default)
// GSM-7 is one septet per octet, read by the codec's GSM 03.38 tables (with the national
// language shift tables a user data header may name). Anything else is refused with ESME_RINVDCS.
import defs from 'smpp/lib/defs.js';
import type { DefaultAlphabet } from '../../modules/smpp/types.ts';
import { SmppRefusal, STATUS } from './command-status.ts';

export interface SubmittedText {
  text: string;
  /** The information elements of the user data header (concatenation among them); none without one. */
  udh: Buffer[];
}

/** What carries the text: raw octets, as the PDU reader leaves them. */
export interface TextFields {
  data_coding?: number | null;
  esm_class?: number | null;
  short_message?: unknown;
  message_payload?: unknown;
}

const IA5 = 1;
const LATIN1 = 3;
const UCS2 = 8;
/** esm_class bit 6: the message starts with a user data header. */
const UDH_INDICATOR = 0x40;
/** National language single shift and locking shift information elements. */
const NATIONAL_LANGUAGE_ELEMENTS = new Set([0x24, 0x25]);

export function acceptedDataCoding(dataCoding: number): boolean {
  if (dataCoding === 0 || dataCoding === IA5 || dataCoding === LATIN1 || dataCoding === UCS2) return true;
  // 1111 0 c cc: GSM-7 with a message class.
  return (dataCoding & 0xfc) === 0xf0;
}

export function submittedText(pdu: TextFields, defaultAlphabet: DefaultAlphabet): SubmittedText {
  const dataCoding = pdu.data_coding ?? 0;
  if (!acceptedDataCoding(dataCoding)) {
    throw new SmppRefusal(STATUS.ESME_RINVDCS, `data_coding ${dataCoding} is not one the gateway sends (0, 1, 3, 8, 0xF0-0xF3)`);
  }
  const short = octetsOf(pdu.short_message);
  const payload = octetsOf(pdu.message_payload);
  if (short.length > 0 && payload.length > 0) {
    throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'short_message and message_payload both carry text; send one');
  }
  const chosen = payload.length > 0 ? payload : short;
  if (chosen.length === 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'the message is empty');
  // The header's lengths were checked against the octets before the PDU was decoded (pdu-layout.ts).
  const headerOctets = ((pdu.esm_class ?? 0) & UDH_INDICATOR) !== 0 ? 1 + chosen[0]! : 0;
  const udh = headerOctets > 0 ? informationElements(chosen.subarray(0, headerOctets)) : [];
  const body = chosen.subarray(headerOctets);
  if (body.length === 0 && udh.length === 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'the message is empty');
  return { text: decodeText(body, dataCoding, defaultAlphabet, udh), udh };
}

function decodeText(octets: Buffer, dataCoding: number, defaultAlphabet: DefaultAlphabet, udh: Buffer[]): string {
  if (dataCoding === UCS2) {
    if (octets.length % 2 !== 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'the UCS-2 message has an odd number of octets');
    const text = Buffer.from(octets).swap16().toString('utf16le');
    // Half a surrogate pair is not text in any coding a phone can send.
    if (!text.isWellFormed()) throw new SmppRefusal(STATUS.ESME_RINVDCS, 'the UCS-2 message has half a surrogate pair');
    return text;
  }
  if (dataCoding === LATIN1) return octets.toString('latin1');
  if (dataCoding === IA5) return ascii(octets, 'data_coding 1 (IA5)');
  if (dataCoding === 0 && defaultAlphabet === 'ascii') return ascii(octets, 'data_coding 0 (this credential\'s default: ascii)');
  if (dataCoding === 0 && defaultAlphabet === 'latin1') return octets.toString('latin1');
  const language = udh.find((element) => NATIONAL_LANGUAGE_ELEMENTS.has(element[0]!))?.[2] ?? 0;
  return defs.gsmCoder.decode(octets, language);
}

function ascii(octets: Buffer, coding: string): string {
  if (octets.some((octet) => octet > 0x7f)) throw new SmppRefusal(STATUS.ESME_RINVDCS, `${coding} is 7-bit; the message has an octet above 127`);
  return octets.toString('latin1');
}

/** The user data header's elements, each with its identifier and length octets (as the concatenation reader takes them). */
function informationElements(header: Buffer): Buffer[] {
  const elements: Buffer[] = [];
  for (let at = 1; at + 1 < header.length; at += 2 + header[at + 1]!) elements.push(header.subarray(at, at + 2 + header[at + 1]!));
  return elements;
}

function octetsOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'latin1');
  return Buffer.alloc(0);
}
