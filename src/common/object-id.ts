// The legacy API family identifies SMS and devices by 24-hex "object ids", the
// shape of a MongoDB ObjectId: 4 bytes of seconds, 5 random bytes fixed per process, and a
// 3-byte counter. Every row also has a UUID for the Extended API; both are stored.
import { randomBytes } from 'node:crypto';

const processPart = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newObjectId(now: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now / 1000).toString(16).padStart(8, '0');
  return seconds + processPart + counter.toString(16).padStart(6, '0');
}

export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
