// UCS-2 user data is UTF-16 big-endian. Code units are kept as they are, so a surrogate pair that
// a careless sender split across two parts joins back once the parts are concatenated.

export function encodeUcs2(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes[i * 2] = unit >> 8;
    bytes[i * 2 + 1] = unit & 0xff;
  }
  return bytes;
}

export function decodeUcs2(bytes: Uint8Array): string {
  let text = '';
  // An odd trailing octet is half a code unit: dropped.
  for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
  return text;
}
