// Modems speak PDUs as hexadecimal text; the codec works on bytes.

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

/** Throws on anything that is not an even number of hex digits: a modem line may be garbage. */
export function hexToBytes(hex: string): Uint8Array {
  const clean = hex.trim();
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) {
    throw new PduFormatError('not an even number of hexadecimal digits');
  }
  return new Uint8Array(Buffer.from(clean, 'hex'));
}

export function isHex(text: string): boolean {
  return text.length > 0 && text.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(text);
}

/** A PDU that cannot be read: too short, a field out of range, not hex. */
export class PduFormatError extends Error {
  override readonly name = 'PduFormatError';
}
