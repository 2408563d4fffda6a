// The user data header and the one element the gateway cares about: concatenation, which ties the
// parts of a long SMS together (reference, total, sequence number from 1). Other elements (ports,
// language shifts...) are skipped.
import type { OctetReader } from './octet-reader.ts';

export interface Concatenation {
  /** Same for every part of one long SMS from one sender. */
  reference: number;
  /** 8 for the one-octet reference element, 16 for the two-octet one: part of the identity. */
  referenceBits: 8 | 16;
  total: number;
  /** 1-based. */
  sequence: number;
}

const IE_CONCAT_8BIT = 0x00;
const IE_CONCAT_16BIT = 0x08;

/** Reads the header (its length octet first) and returns the concatenation element if any. */
export function readUserDataHeader(reader: OctetReader): { headerOctets: number; concatenation?: Concatenation } {
  const length = reader.octet('the user data header length');
  const header = reader.octets(length, 'the user data header');
  let concatenation: Concatenation | undefined;
  for (let i = 0; i + 1 < header.length; ) {
    const id = header[i]!;
    const size = header[i + 1]!;
    const data = header.subarray(i + 2, i + 2 + size);
    if (data.length === size) {
      if (id === IE_CONCAT_8BIT && size === 3) {
        concatenation = { reference: data[0]!, referenceBits: 8, total: data[1]!, sequence: data[2]! };
      } else if (id === IE_CONCAT_16BIT && size === 4) {
        concatenation = { reference: (data[0]! << 8) | data[1]!, referenceBits: 16, total: data[2]!, sequence: data[3]! };
      }
    }
    i += 2 + size;
  }
  // A total of 0 or a sequence outside 1..total is no usable concatenation: the part stands alone.
  if (concatenation && (concatenation.total === 0 || concatenation.sequence < 1 || concatenation.sequence > concatenation.total)) {
    concatenation = undefined;
  }
  return { headerOctets: 1 + length, ...(concatenation ? { concatenation } : {}) };
}

/** The header of one part of a long SMS we send: the one-octet reference element (6 octets in all). */
export function concatenationHeader(reference: number, total: number, sequence: number): Uint8Array {
  return Uint8Array.of(0x05, IE_CONCAT_8BIT, 0x03, reference & 0xff, total, sequence);
}
