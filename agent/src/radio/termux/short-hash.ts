import { createHash } from 'node:crypto';

/** A short, stable fingerprint of some fields, for ids that must survive a restart. */
export function shortHash(fields: readonly string[], length = 16): string {
  // The unit separator keeps ("ab", "c") and ("a", "bc") apart.
  return createHash('sha256').update(fields.join('\u001f')).digest('hex').slice(0, length);
}
