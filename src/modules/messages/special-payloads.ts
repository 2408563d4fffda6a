// What the gateway can check of the SMS it cannot read as text: an end-to-end encrypted field
// must be in the one documented format (docs/encryption.md), and a data SMS's payload must be
// base64 of a payload one SMS carries. Nothing here decrypts: the gateway never has a passphrase.
import { invalidField } from '../../common/errors.ts';
import { parseEncrypted } from '../../common/end-to-end.ts';

/**
 * Bytes of binary one data SMS carries: 140 octets of 8-bit user data, less the 7-octet header
 * that addresses the application port (length octet, element 0x05 with its 4 octets of ports).
 */
export const DATA_MAX_BYTES = 133;
/** Ciphertext of a 170-character text (at most 680 bytes of UTF-8) fits, with room to spare. */
export const ENCRYPTED_MESSAGE_MAX_CHARACTERS = 1024;
/** Ciphertext of a recipient of up to 64 characters fits. */
export const ENCRYPTED_PHONE_MAX_CHARACTERS = 256;

/** Strict base64: standard alphabet, padded, nothing else (no spaces, no URL-safe letters). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Throws a 400 naming the field unless the value is ciphertext in the format. */
export function checkCiphertext(field: string, value: string): void {
  const problem = parseEncrypted(value);
  if (typeof problem === 'string') throw invalidField(field, `${field} ${problem} (docs/encryption.md)`, 'invalid_ciphertext');
}

/** The payload's size in bytes; a 400 naming the field unless it is base64 of 1-133 bytes. */
export function checkDataPayload(field: string, base64: string): number {
  if (!BASE64.test(base64)) throw invalidField(field, `${field} must be standard base64 (A-Z a-z 0-9 + /, padded with =)`, 'invalid_data');
  const bytes = Buffer.byteLength(base64, 'base64');
  if (bytes === 0) throw invalidField(field, `${field} must hold at least one byte`, 'invalid_data');
  if (bytes > DATA_MAX_BYTES) {
    throw invalidField(field, `${field} holds ${bytes} bytes; one data SMS carries at most ${DATA_MAX_BYTES} (140 less the port header)`, 'invalid_data');
  }
  return bytes;
}
