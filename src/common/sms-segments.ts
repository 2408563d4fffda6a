// How many SMS a text is sent as, so a client can see what it will cost before sending. Counted
// as Android phones split a text (SmsMessage.calculateLength / fragmentText): GSM 7-bit if it can.
export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  /** code units billed: septets for gsm7 (extension chars count 2), UTF-16 units for ucs2 */
  units: number;
}

// A lone SMS carries 140 octets; a part of a longer text loses 6 of them to the concatenation
// header, leaving 160 / 153 septets or 70 / 67 UTF-16 units.
const GSM7_SINGLE_LIMIT = 160;
const GSM7_PART_SIZE = 153;
const UCS2_SINGLE_LIMIT = 70;
const UCS2_PART_SIZE = 67;

// GSM 03.38 default alphabet, in table order 0x00–0x7F. ESC (0x1B) is left out: it only introduces
// an extension character and is never a character a user writes.
const GSM7_BASIC = new Set([
  ...'@£$¥èéùìòÇ\nØø\rÅå',
  ...'Δ_ΦΓΛΩΠΨΣΘΞÆæßÉ',
  ...' !"#¤%&\'()*+,-./',
  ...'0123456789:;<=>?',
  ...'¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§',
  ...'¿abcdefghijklmnopqrstuvwxyzäöñüà',
]);

// Sent as ESC + character, so each costs two septets.
const GSM7_EXTENSION = new Set([...'\f^{}\\[~]|€']);

/** Fills parts of `partSize` units in order, starting a new part when a character would not fit
 *  whole: phones never split an escape pair or a surrogate pair across two parts, so a part can
 *  end a unit short and plain division would undercount. */
class PartPacker {
  parts = 1;
  units = 0;
  private unitsInPart = 0;

  constructor(private readonly partSize: number) {}

  add(cost: number): void {
    this.units += cost;
    if (this.unitsInPart + cost > this.partSize) {
      this.parts++;
      this.unitsInPart = 0;
    }
    this.unitsInPart += cost;
  }
}

function gsm7Septets(char: string): number | undefined {
  if (GSM7_BASIC.has(char)) return 1;
  if (GSM7_EXTENSION.has(char)) return 2;
  return undefined;
}

export function countSegments(text: string): SegmentCount {
  // Both packings run side by side so the text is read once, whichever encoding it ends up in.
  const gsm7 = new PartPacker(GSM7_PART_SIZE);
  const ucs2 = new PartPacker(UCS2_PART_SIZE);
  let fitsGsm7 = true;

  // for…of walks code points, so an emoji outside the BMP arrives as one 2-unit character.
  for (const char of text) {
    ucs2.add(char.length);
    if (!fitsGsm7) continue;
    const septets = gsm7Septets(char);
    if (septets === undefined) fitsGsm7 = false;
    else gsm7.add(septets);
  }

  // The empty text lands here as gsm7, 0 units, 1 segment: a phone still sends one empty part.
  if (fitsGsm7) {
    const segments = gsm7.units <= GSM7_SINGLE_LIMIT ? 1 : gsm7.parts;
    return { encoding: 'gsm7', segments, units: gsm7.units };
  }
  const segments = ucs2.units <= UCS2_SINGLE_LIMIT ? 1 : ucs2.parts;
  return { encoding: 'ucs2', segments, units: ucs2.units };
}
