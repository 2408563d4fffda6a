// How a text is cut into SMS parts, the way phones do it: GSM-7 when every character has a GSM-7
// form, else UCS-2. A lone SMS carries 140 octets; each part of a longer text gives 6 of them to
// the concatenation header, leaving 160 / 153 septets or 70 / 67 UTF-16 units. A part never ends
// in the middle of an escape pair or a surrogate pair, so it may end one unit short.
import { fitsGsm7, gsm7Septets } from './gsm7-alphabet.ts';

export type TextEncoding = 'gsm7' | 'ucs2';

export const GSM7_SINGLE_LIMIT = 160;
export const GSM7_PART_SIZE = 153;
export const UCS2_SINGLE_LIMIT = 70;
export const UCS2_PART_SIZE = 67;

export interface SplitText {
  encoding: TextEncoding;
  /** At least one part: an empty text is sent as one empty SMS. */
  parts: string[];
}

export function splitText(text: string): SplitText {
  if (fitsGsm7(text)) {
    return { encoding: 'gsm7', parts: cut(text, GSM7_SINGLE_LIMIT, GSM7_PART_SIZE, (char) => gsm7Septets(char) ?? 1) };
  }
  return { encoding: 'ucs2', parts: cut(text, UCS2_SINGLE_LIMIT, UCS2_PART_SIZE, (char) => char.length) };
}

/** Units a text costs in an encoding: septets (extension characters count 2) or UTF-16 units. */
export function textUnits(text: string, encoding: TextEncoding): number {
  if (encoding === 'ucs2') return text.length;
  let septets = 0;
  for (const char of text) septets += gsm7Septets(char) ?? 1;
  return septets;
}

function cut(text: string, singleLimit: number, partSize: number, cost: (char: string) => number): string[] {
  // for...of walks code points, so a character outside the BMP is one 2-unit step.
  const chars = [...text];
  const total = chars.reduce((sum, char) => sum + cost(char), 0);
  if (total <= singleLimit) return [text];
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const char of chars) {
    const units = cost(char);
    if (used + units > partSize) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += char;
    used += units;
  }
  parts.push(current);
  return parts;
}
