// TP-UDL and TP-UD, both ways. TP-UDL counts septets for GSM-7 (header and fill bits included)
// and octets otherwise.
import type { Alphabet } from './data-coding.ts';
import { decodeGsm7, encodeGsm7 } from './gsm7-alphabet.ts';
import { PduFormatError } from './hex.ts';
import { OctetReader } from './octet-reader.ts';
import { fillBitsAfterHeader, headerSeptets, packSeptets, unpackSeptets } from './septet-packing.ts';
import { decodeUcs2, encodeUcs2 } from './ucs2.ts';
import { readUserDataHeader, type Concatenation } from './user-data-header.ts';

export interface UserData {
  text: string;
  concatenation?: Concatenation;
}

/** Reads TP-UDL and TP-UD, which end the TPDU. */
export function decodeUserData(reader: OctetReader, alphabet: Alphabet, hasHeader: boolean): UserData {
  const length = reader.octet('the user data length');
  const body = reader.rest();
  const bodyReader = new OctetReader(body);
  const header = hasHeader ? readUserDataHeader(bodyReader) : { headerOctets: 0 };
  const concatenation = 'concatenation' in header ? header.concatenation : undefined;
  let text: string;
  if (alphabet === 'gsm7') {
    const skipSeptets = hasHeader ? headerSeptets(header.headerOctets) : 0;
    const septets = unpackSeptets(
      body.subarray(header.headerOctets),
      Math.max(0, length - skipSeptets),
      hasHeader ? fillBitsAfterHeader(header.headerOctets) : 0,
    );
    text = decodeGsm7(septets);
  } else {
    // Some modems announce more than they carry: read what is there.
    const data = body.subarray(header.headerOctets, Math.max(header.headerOctets, Math.min(length, body.length)));
    text = alphabet === 'ucs2' ? decodeUcs2(data) : Buffer.from(data).toString('latin1');
  }
  return concatenation ? { text, concatenation } : { text };
}

/** TP-UDL followed by TP-UD for one part. */
export function encodeUserData(text: string, alphabet: 'gsm7' | 'ucs2', header?: Uint8Array): Uint8Array {
  const headerOctets = header?.length ?? 0;
  if (alphabet === 'ucs2') {
    const data = encodeUcs2(text);
    const length = headerOctets + data.length;
    if (length > 140) throw new PduFormatError('a part longer than 140 octets');
    return Uint8Array.from([length, ...(header ?? []), ...data]);
  }
  const septets = encodeGsm7(text);
  if (!septets) throw new PduFormatError('a character without a GSM-7 form');
  const fill = header ? fillBitsAfterHeader(headerOctets) : 0;
  const length = (header ? headerSeptets(headerOctets) : 0) + septets.length;
  if (length > 160) throw new PduFormatError('a part longer than 160 septets');
  return Uint8Array.from([length, ...(header ?? []), ...packSeptets(septets, fill)]);
}
