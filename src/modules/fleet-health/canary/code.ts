// The text of a canary SMS: a fixed phrase and a short code, GSM-7 and one segment, so that any
// phone sends it as it sends any SMS and the receiving phone reports it unchanged. The code names
// the probe among the account's probes still waiting (migration 042 keeps it unique there).
import { randomBytes } from 'node:crypto';

/** RFC 4648 base32: capitals and 2-7, nothing an operator or a keyboard confuses (no 0, 1, 8, 9). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 8 characters: 40 random bits. */
export const CANARY_CODE_LENGTH = 8;

/**
 * What a canary SMS reads as a phone reports it: the phrase, one space, the code; spaces around
 * it and the code's case are forgiven (a phone may trim or an operator's gateway may fold it).
 */
export const CANARY_TEXT = /^\s*Gateway check ([A-Za-z2-7]{8})\s*$/;

export function newCanaryCode(): string {
  const bytes = randomBytes(5);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let code = '';
  for (let i = CANARY_CODE_LENGTH - 1; i >= 0; i--) code += ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return code;
}

export function canaryText(code: string): string {
  return `Gateway check ${code}`;
}

/** The code a received text carries, when it is a canary's; undefined for any other text (one regex test). */
export function canaryCodeIn(text: string): string | undefined {
  const match = CANARY_TEXT.exec(text);
  return match ? match[1]!.toUpperCase() : undefined;
}
