// Twilio's identifiers: an AccountSid is "AC" and 32 hex digits, a message's Sid "SM" and 32. A
// message Sid is our SMS's UUID without its dashes, so it maps back without a table; an incoming
// SMS's Sid is made the same way from its own UUID.
import { randomBytes } from 'node:crypto';

const ACCOUNT_SID = /^AC[0-9a-f]{32}$/;
const MESSAGE_SID = /^SM[0-9a-f]{32}$/i;

export function newAccountSid(): string {
  return `AC${randomBytes(16).toString('hex')}`;
}

/** 32 hex digits, as Twilio's auth tokens look. */
export function newAuthToken(): string {
  return randomBytes(16).toString('hex');
}

export function isAccountSid(text: string): boolean {
  return ACCOUNT_SID.test(text);
}

export function messageSid(uuid: string): string {
  return `SM${uuid.replace(/-/g, '').toLowerCase()}`;
}

/** The SMS UUID a message Sid stands for; undefined when it is no message Sid. */
export function uuidOfMessageSid(sid: string): string | undefined {
  if (!MESSAGE_SID.test(sid)) return undefined;
  const hex = sid.slice(2).toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
