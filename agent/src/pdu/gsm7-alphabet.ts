// The GSM 7-bit default alphabet and its extension table, shared by the SMS codec and by anyone
// counting what a text costs. A character is either one septet (basic table), two septets (ESC then
// its extension code) or not representable, which sends the whole text as UCS-2.

/** ESC: the septet that says "the next septet is from the extension table". */
export const GSM7_ESCAPE = 0x1b;

// In table order 0x00-0x7F. Position 0x1B holds ESC itself, which is never a character of a text.
export const GSM7_BASIC_TABLE: readonly string[] = [
  ...'@£$¥èéùìòÇ\nØø\rÅå',
  ...'Δ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ',
  ...' !"#¤%&\'()*+,-./',
  ...'0123456789:;<=>?',
  ...'¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§',
  ...'¿abcdefghijklmnopqrstuvwxyzäöñüà',
];

/** Characters sent as ESC + code, keyed by character. */
export const GSM7_EXTENSION_TABLE: ReadonlyMap<string, number> = new Map([
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
]);

const BASIC_CODES: ReadonlyMap<string, number> = new Map(
  GSM7_BASIC_TABLE.flatMap((char, code) => (code === GSM7_ESCAPE ? [] : [[char, code] as const])),
);

const EXTENSION_CHARS: ReadonlyMap<number, string> = new Map(
  [...GSM7_EXTENSION_TABLE].map(([char, code]) => [code, char] as const),
);

/** Septets a character costs in GSM-7: 1, 2 (extension), or undefined when it has no GSM-7 form. */
export function gsm7Septets(char: string): 1 | 2 | undefined {
  if (BASIC_CODES.has(char)) return 1;
  if (GSM7_EXTENSION_TABLE.has(char)) return 2;
  return undefined;
}

export function fitsGsm7(text: string): boolean {
  for (const char of text) if (gsm7Septets(char) === undefined) return false;
  return true;
}

/** The septet codes of a text, or undefined when a character has no GSM-7 form. */
export function encodeGsm7(text: string): number[] | undefined {
  const codes: number[] = [];
  for (const char of text) {
    const basic = BASIC_CODES.get(char);
    if (basic !== undefined) {
      codes.push(basic);
      continue;
    }
    const extension = GSM7_EXTENSION_TABLE.get(char);
    if (extension === undefined) return undefined;
    codes.push(GSM7_ESCAPE, extension);
  }
  return codes;
}

export function decodeGsm7(codes: readonly number[]): string {
  let text = '';
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]! & 0x7f;
    if (code !== GSM7_ESCAPE) {
      text += GSM7_BASIC_TABLE[code];
      continue;
    }
    const next = codes[++i];
    // A lone ESC at the very end carries nothing; an extension code this table lacks is shown as
    // the basic character of that code, which is what phones do.
    if (next === undefined) break;
    text += EXTENSION_CHARS.get(next & 0x7f) ?? GSM7_BASIC_TABLE[next & 0x7f];
  }
  return text;
}
