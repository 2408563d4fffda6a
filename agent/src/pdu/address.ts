// Phone numbers in a PDU: a type-of-address octet (type of number, numbering plan) and the digits
// as semi-octets, low nibble first, padded with F. An alphanumeric sender ("MyBank") is GSM-7
// packed instead, its length still counted in semi-octets.
import { decodeGsm7 } from './gsm7-alphabet.ts';
import { PduFormatError } from './hex.ts';
import type { OctetReader } from './octet-reader.ts';
import { unpackSeptets } from './septet-packing.ts';

export type NumberType = 'international' | 'national' | 'alphanumeric' | 'other';

export interface Address {
  /** E.164 with + for an international number, the digits for other numbers, the text of an alphanumeric one. */
  value: string;
  type: NumberType;
}

const TYPE_INTERNATIONAL = 0x91; // international number, ISDN/telephone numbering plan
const TYPE_UNKNOWN = 0x81; // unknown type (the network reads it as dialled), ISDN numbering plan

const SEMI_OCTET_DIGITS = '0123456789*#abc';

export function encodeSemiOctets(digits: string): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(digits.length / 2));
  for (let i = 0; i < digits.length; i += 2) {
    const low = semiOctetValue(digits[i]!);
    const high = i + 1 < digits.length ? semiOctetValue(digits[i + 1]!) : 0x0f;
    bytes[i / 2] = (high << 4) | low;
  }
  return bytes;
}

export function decodeSemiOctets(bytes: Uint8Array, maxDigits = bytes.length * 2): string {
  let digits = '';
  for (const byte of bytes) {
    for (const nibble of [byte & 0x0f, byte >> 4]) {
      if (nibble === 0x0f || digits.length >= maxDigits) return digits;
      digits += SEMI_OCTET_DIGITS[nibble];
    }
  }
  return digits;
}

function semiOctetValue(char: string): number {
  const value = SEMI_OCTET_DIGITS.indexOf(char);
  if (value < 0) throw new PduFormatError('a phone number may only hold digits, *, # and a leading +');
  return value;
}

/** "+4915..." becomes international, anything else of digits goes out as dialled. */
function splitPhone(phone: string): { digits: string; type: number } {
  const trimmed = phone.trim();
  const international = trimmed.startsWith('+');
  const digits = international ? trimmed.slice(1) : trimmed;
  if (!/^[0-9*#]{1,20}$/.test(digits)) throw new PduFormatError('not a phone number');
  return { digits, type: international ? TYPE_INTERNATIONAL : TYPE_UNKNOWN };
}

/** TP-DA / TP-OA / TP-RA: the length counts digits. */
export function encodeAddress(phone: string): Uint8Array {
  const { digits, type } = splitPhone(phone);
  return Uint8Array.from([digits.length, type, ...encodeSemiOctets(digits)]);
}

/** The SMSC address in front of a TPDU: the length counts octets (type octet included); 00 means "the SIM's". */
export function encodeSmscAddress(smsc: string | undefined): Uint8Array {
  if (!smsc) return Uint8Array.of(0);
  const { digits, type } = splitPhone(smsc);
  const semiOctets = encodeSemiOctets(digits);
  return Uint8Array.from([semiOctets.length + 1, type, ...semiOctets]);
}

export function decodeAddress(reader: OctetReader): Address {
  const semiOctetCount = reader.octet('the address length');
  const typeOfAddress = reader.octet('the type of address');
  const body = reader.octets(Math.ceil(semiOctetCount / 2), 'the address');
  return readAddress(typeOfAddress, body, semiOctetCount);
}

export function decodeSmscAddress(reader: OctetReader): Address | undefined {
  const length = reader.octet('the SMSC address length');
  if (length === 0) return undefined;
  const typeOfAddress = reader.octet('the SMSC type of address');
  const body = reader.octets(length - 1, 'the SMSC address');
  return readAddress(typeOfAddress, body, body.length * 2);
}

function readAddress(typeOfAddress: number, body: Uint8Array, semiOctetCount: number): Address {
  const typeOfNumber = (typeOfAddress >> 4) & 0x07;
  if (typeOfNumber === 0b101) {
    const septets = Math.floor((semiOctetCount * 4) / 7);
    return { value: decodeGsm7(unpackSeptets(body, septets)), type: 'alphanumeric' };
  }
  const digits = decodeSemiOctets(body, semiOctetCount);
  if (typeOfNumber === 0b001) return { value: `+${digits}`, type: 'international' };
  return { value: digits, type: typeOfNumber === 0b010 ? 'national' : 'other' };
}
