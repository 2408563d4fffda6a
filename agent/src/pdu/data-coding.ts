// TP-DCS: which alphabet the user data is in. Only the alphabet matters to a gateway that passes
// text on; message classes and waiting indications are read past.

export type Alphabet = 'gsm7' | '8bit' | 'ucs2';

export const DCS_GSM7 = 0x00;
export const DCS_UCS2 = 0x08;

export function alphabetOf(dcs: number): Alphabet {
  const group = dcs >> 4;
  if (group <= 0b0111) {
    // General data coding (with or without automatic deletion): bits 3-2 name the alphabet;
    // the reserved value is read as GSM-7, as the standard asks.
    const bits = (dcs >> 2) & 0b11;
    return bits === 0b01 ? '8bit' : bits === 0b10 ? 'ucs2' : 'gsm7';
  }
  if (group === 0b1110) return 'ucs2'; // message waiting indication, stored, UCS-2
  if (group === 0b1111) return dcs & 0b100 ? '8bit' : 'gsm7'; // data coding / message class
  return 'gsm7'; // message waiting groups and reserved groups use the default alphabet
}
