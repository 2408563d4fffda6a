// GSM-7 septets travel packed: septet n occupies bits 7n..7n+6 of the user data, least
// significant bit first. After a user data header the first septet starts on the next septet
// boundary counted from the start of the user data, so 0-6 fill bits sit between the two.

export function packSeptets(septets: readonly number[], fillBits = 0): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((fillBits + septets.length * 7) / 8));
  septets.forEach((septet, index) => {
    const bit = fillBits + index * 7;
    const byte = bit >> 3;
    const shift = bit & 7;
    bytes[byte]! |= (septet << shift) & 0xff;
    if (shift > 1) bytes[byte + 1]! |= (septet & 0x7f) >> (8 - shift);
  });
  return bytes;
}

/** Reads `count` septets; bits past the end of `bytes` read as 0 (a short PDU loses its tail, not the whole text). */
export function unpackSeptets(bytes: Uint8Array, count: number, fillBits = 0): number[] {
  const septets: number[] = [];
  for (let index = 0; index < count; index++) {
    const bit = fillBits + index * 7;
    const byte = bit >> 3;
    const shift = bit & 7;
    const low = (bytes[byte] ?? 0) >> shift;
    const high = shift > 1 ? (bytes[byte + 1] ?? 0) << (8 - shift) : 0;
    septets.push((low | high) & 0x7f);
  }
  return septets;
}

/** Fill bits that bring a header of `headerOctets` (its length octet included) to a septet boundary. */
export function fillBitsAfterHeader(headerOctets: number): number {
  return (7 - ((headerOctets * 8) % 7)) % 7;
}

/** Septets a header of `headerOctets` takes up, fill bits included: what counts in TP-UDL. */
export function headerSeptets(headerOctets: number): number {
  return Math.ceil((headerOctets * 8) / 7);
}
