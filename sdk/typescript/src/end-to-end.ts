// End-to-end encryption of an SMS's text and recipient, in the one format every client and phone
// of the gateway share (docs/encryption.md of the gateway, which has a test vector):
//
//   $aes-256-gcm/pbkdf2-sha256$i=<iterations>$<salt>$<iv>$<ciphertext and tag>
//
// The implementation is the device agent's, compiled into this package (the SDK still has no
// dependency): the phone that decrypts and the client that encrypts run the same code.
export {
  E2E_SCHEME,
  DEFAULT_ITERATIONS,
  MIN_ITERATIONS,
  MAX_ITERATIONS,
  SALT_BYTES,
  IV_BYTES,
  TAG_BYTES,
  parseEncrypted,
  isEncrypted,
  encrypt,
  decrypt,
  DecryptionError,
  type EncryptedParts,
  type EncryptOptions,
} from '../../../agent/src/protocol/end-to-end.js';
