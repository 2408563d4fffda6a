// End-to-end encryption of an SMS's text and recipient (docs/encryption.md). The implementation
// is the device agent's, which must run without the gateway's code; clients, the gateway's
// checks and the simulator use it from here.
export {
  DEFAULT_ITERATIONS,
  DecryptionError,
  E2E_SCHEME,
  MAX_ITERATIONS,
  MIN_ITERATIONS,
  decrypt,
  encrypt,
  isEncrypted,
  parseEncrypted,
  passphraseFingerprint,
  FINGERPRINT_PATTERN,
  type EncryptOptions,
} from '../../agent/src/protocol/end-to-end.ts';
