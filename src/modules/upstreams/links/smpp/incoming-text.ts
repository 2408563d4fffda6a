// The text of a deliver_sm, read from its raw octets (short_message, or the message_payload TLV
// when short_message is empty) in the coding its data_coding names, and where it belongs when it
// is one part of a longer SMS: a user data header's concatenation element (8- or 16-bit
// reference) or the sar_* TLVs.
//   0, 0xF0-0xF3  GSM-7, one septet an octet (with the national language tables a header names)
//   1             IA5 (ASCII)
//   3             Latin-1
//   6, 7          ISO-8859-5 (Cyrillic), ISO-8859-8 (Hebrew)
//   8             UCS-2, big-endian
// Anything else (binary, codings no phone sends as text) is read as Latin-1, octet for octet.
import defs from 'smpp/lib/defs.js';
import { decodeGsm7 } from '../../../../../agent/src/pdu/gsm7-alphabet.ts';
import { ESM_CLASS_UDH } from './outgoing-text.ts';

export interface PartPlace {
  /** The reference every part of the SMS shares (with the sender, it tells SMS apart). */
  reference: number;
  total: number;
  /** 1-based. */
  seq: number;
}

export interface IncomingPart {
  /** The text's octets, header taken off. */
  octets: Buffer;
  dataCoding: number;
  /** A national language shift table a header named (GSM-7 only); 0: none. */
  language: number;
  /** Set when the SMS came in parts (and there is more than one). */
  place?: PartPlace;
}

/** The fields of a deliver_sm that carry its text, as the codec read them without decoding. */
export interface TextFields {
  data_coding?: number | null;
  esm_class?: number | null;
  short_message?: unknown;
  message_payload?: unknown;
  sar_msg_ref_num?: number;
  sar_total_segments?: number;
  sar_segment_seqnum?: number;
}

const NATIONAL_LANGUAGE_ELEMENTS = new Set([0x24, 0x25]);

export function readIncomingPart(pdu: TextFields): IncomingPart {
  const dataCoding = pdu.data_coding ?? 0;
  const short = octetsOf(pdu.short_message);
  const chosen = short.length > 0 ? short : octetsOf(pdu.message_payload);
  const hasHeader = ((pdu.esm_class ?? 0) & ESM_CLASS_UDH) !== 0 && chosen.length > 0 && chosen[0]! + 1 <= chosen.length;
  const headerLength = hasHeader ? chosen[0]! + 1 : 0;
  const elements = hasHeader ? informationElements(chosen.subarray(1, headerLength)) : [];
  const part: IncomingPart = { octets: chosen.subarray(headerLength), dataCoding, language: 0 };
  for (const { id, data } of elements) {
    if (id === 0x00 && data.length === 3) part.place = { reference: data[0]!, total: data[1]!, seq: data[2]! };
    if (id === 0x08 && data.length === 4) part.place = { reference: data.readUInt16BE(0), total: data[2]!, seq: data[3]! };
    if (NATIONAL_LANGUAGE_ELEMENTS.has(id) && data.length === 1) part.language = data[0]!;
  }
  if (!part.place && pdu.sar_total_segments !== undefined && pdu.sar_segment_seqnum !== undefined) {
    part.place = { reference: pdu.sar_msg_ref_num ?? 0, total: pdu.sar_total_segments, seq: pdu.sar_segment_seqnum };
  }
  // A "part" 1 of 1, or a place that cannot be, is a whole SMS: held, it would wait for nothing.
  if (part.place && (part.place.total < 2 || part.place.seq < 1 || part.place.seq > part.place.total)) delete part.place;
  return part;
}

export function decodeIncomingText(octets: Buffer, dataCoding: number, language = 0): string {
  if (dataCoding === 0 || (dataCoding & 0xfc) === 0xf0) {
    return language === 0 ? decodeGsm7([...octets]) : defs.gsmCoder.decode(octets, language);
  }
  if (dataCoding === 8) {
    // An odd trailing octet is half a character: left out rather than shown as garbage.
    const even = octets.length % 2 === 0 ? octets : octets.subarray(0, octets.length - 1);
    return Buffer.from(even).swap16().toString('utf16le');
  }
  if (dataCoding === 1) return octets.toString('latin1').replace(/[\x80-\xff]/g, '?');
  if (dataCoding === 6) return new TextDecoder('iso-8859-5').decode(octets);
  if (dataCoding === 7) return new TextDecoder('iso-8859-8').decode(octets);
  return octets.toString('latin1');
}

function informationElements(body: Buffer): { id: number; data: Buffer }[] {
  const elements: { id: number; data: Buffer }[] = [];
  for (let at = 0; at + 1 < body.length; ) {
    const length = body[at + 1]!;
    if (at + 2 + length > body.length) break;
    elements.push({ id: body[at]!, data: body.subarray(at + 2, at + 2 + length) });
    at += 2 + length;
  }
  return elements;
}

function octetsOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'latin1');
  return Buffer.alloc(0);
}
