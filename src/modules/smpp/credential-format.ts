// What an SMPP credential looks like. SMPP 3.4 allows a system_id of 15 characters and a
// password of 8 (C-Octet strings of 16 and 9 with their NUL), so a password cannot be a long
// random key: it is 8 characters drawn from letters and digits (about 46 bits), and the
// authentication throttle locks a system_id after repeated failures, towards the addresses that
// failed with it (src/common/auth-throttle.ts).
import { randomInt } from 'node:crypto';

export const SYSTEM_ID_PATTERN = /^[A-Za-z0-9_.-]{1,15}$/;
export const PASSWORD_LENGTH = 8;
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export function generatePassword(): string {
  let password = '';
  for (let i = 0; i < PASSWORD_LENGTH; i++) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}

/** A system_id for a credential created without one: "sgw" and 8 random letters or digits. */
export function generateSystemId(): string {
  let id = 'sgw';
  for (let i = 0; i < 8; i++) id += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]!.toLowerCase();
  return id;
}
