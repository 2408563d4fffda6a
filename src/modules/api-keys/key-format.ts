// API key shape: "sgw_<10 hex prefix>_<43 char base64url secret>". The prefix is not secret:
// it is stored in clear, shown in `keys list`, and finds the row; the whole key is hashed.
import { randomBytes } from 'node:crypto';
import { randomToken } from '../../common/secrets.ts';

const KEY_PATTERN = /^(sgw_[0-9a-f]{10})_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; prefix: string } {
  const prefix = `sgw_${randomBytes(5).toString('hex')}`;
  return { key: `${prefix}_${randomToken(32)}`, prefix };
}

/** The prefix of a well-formed key, or undefined for anything else. */
export function keyPrefix(presented: string): string | undefined {
  return KEY_PATTERN.exec(presented)?.[1];
}
