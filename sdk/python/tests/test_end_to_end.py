"""End-to-end encryption, offline: the AES-256-GCM written out in sms_gateway._aes_gcm against
published vectors (FIPS 197 for the block, the GCM specification's test cases 13 to 16, which
SP 800-38D's validation uses, for AES-256), and the gateway's format against the test vector of
docs/encryption.md. test/sdk/python.test.ts checks it against the TypeScript implementation."""

import base64
import unittest

from sms_gateway import DecryptionError, decrypt, encrypt, is_encrypted, parse_encrypted
from sms_gateway import _aes_gcm

VECTOR = (
    "$aes-256-gcm/pbkdf2-sha256$i=100000$AAECAwQFBgcICQoLDA0ODw==$oKGio6Slpqeoqaqr"
    "$YTYXOSpmmUX44+diy7tD8B9iwG3DpzAeazmOW8hy8NP6JrZ/v8ZGZ49QTQ=="
)
VECTOR_PASSPHRASE = "correct horse battery staple"
VECTOR_TEXT = "Hello from the gateway \N{WAVING HAND SIGN}"
VECTOR_SALT = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
VECTOR_IV = bytes.fromhex("a0a1a2a3a4a5a6a7a8a9aaab")

# The GCM specification (McGrew and Viega), AES-256 test cases: key, IV, plaintext, associated
# data, ciphertext, tag (hex).
_K15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
_P15 = (
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
)
_C15 = (
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
)
GCM_VECTORS = {
    13: ("00" * 32, "00" * 12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
    14: ("00" * 32, "00" * 12, "00" * 16, "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"),
    15: (_K15, "cafebabefacedbaddecaf888", _P15, "", _C15, "b094dac5d93471bdec1a502270e3cc6c"),
    16: (_K15, "cafebabefacedbaddecaf888", _P15[:120], "feedfacedeadbeeffeedfacedeadbeefabaddad2", _C15[:120], "76fc6ece0f4e1768cddf8853bb2d551b"),
}


class AesGcmTest(unittest.TestCase):
    def test_the_block_cipher_gives_the_fips_197_aes_256_example(self):
        round_keys = _aes_gcm.expand_key(bytes(range(32)))
        block = _aes_gcm.encrypt_block(round_keys, bytes.fromhex("00112233445566778899aabbccddeeff"))
        self.assertEqual(block.hex(), "8ea2b7ca516745bfeafc49904b496089")

    def test_gcm_gives_the_published_aes_256_test_cases(self):
        for number, (key, iv, plain, aad, cipher, tag) in GCM_VECTORS.items():
            with self.subTest(test_case=number):
                key, iv, plain, aad = (bytes.fromhex(value) for value in (key, iv, plain, aad))
                self.assertEqual(_aes_gcm.seal(key, iv, plain, aad).hex(), cipher + tag)
                self.assertEqual(_aes_gcm.open_sealed(key, iv, bytes.fromhex(cipher + tag), aad), plain)

    def test_an_altered_byte_anywhere_fails_the_tag(self):
        key, iv, plain, aad, cipher, tag = (bytes.fromhex(value) for value in GCM_VECTORS[16])
        sealed = cipher + tag
        for position in (0, len(cipher) - 1, len(cipher), len(sealed) - 1):
            altered = bytearray(sealed)
            altered[position] ^= 0x01
            with self.subTest(position=position), self.assertRaises(_aes_gcm.InvalidTag):
                _aes_gcm.open_sealed(key, iv, bytes(altered), aad)
        with self.assertRaises(_aes_gcm.InvalidTag):
            _aes_gcm.open_sealed(key, iv, sealed, aad + b"!")
        with self.assertRaises(_aes_gcm.InvalidTag):
            _aes_gcm.open_sealed(key, iv, tag[:15], aad)

    def test_keys_and_ivs_of_other_sizes_are_refused(self):
        with self.assertRaises(ValueError):
            _aes_gcm.seal(bytes(16), bytes(12), b"x")
        with self.assertRaises(ValueError):
            _aes_gcm.seal(bytes(32), bytes(16), b"x")


class FormatTest(unittest.TestCase):
    def test_the_documented_vector_decrypts_and_encrypts_back_alike(self):
        self.assertEqual(decrypt(VECTOR, VECTOR_PASSPHRASE), VECTOR_TEXT)
        self.assertEqual(encrypt(VECTOR_TEXT, VECTOR_PASSPHRASE, iterations=100_000, salt=VECTOR_SALT, iv=VECTOR_IV), VECTOR)

    def test_a_round_trip_draws_a_new_salt_and_iv_each_time(self):
        for text in ["+79161234567", "другой текст", "x" * 700]:
            with self.subTest(length=len(text)):
                first, second = encrypt(text, "pass phrase", iterations=10_000), encrypt(text, "pass phrase", iterations=10_000)
                self.assertNotEqual(first, second)
                self.assertTrue(is_encrypted(first))
                self.assertEqual(decrypt(first, "pass phrase"), text)
                self.assertEqual(decrypt(second, "pass phrase"), text)

    def test_a_wrong_passphrase_raises_decryption_error(self):
        with self.assertRaises(DecryptionError) as caught:
            decrypt(VECTOR, "Correct horse battery staple")
        self.assertIn("does not open", str(caught.exception))

    def test_an_altered_ciphertext_raises_decryption_error(self):
        head, sealed = VECTOR.rsplit("$", 1)
        raw = bytearray(base64.b64decode(sealed))
        raw[3] ^= 0x80
        with self.assertRaises(DecryptionError):
            decrypt(head + "$" + base64.b64encode(bytes(raw)).decode(), VECTOR_PASSPHRASE)

    def test_values_out_of_the_format_say_what_is_wrong(self):
        salt, iv = base64.b64encode(VECTOR_SALT).decode(), base64.b64encode(VECTOR_IV).decode()
        cases = {
            "plain text": "is not in the format",
            VECTOR.replace("i=100000", "i=1000"): "names 1000 iterations; 10000-1000000 are accepted",
            VECTOR.replace(salt, base64.b64encode(bytes(12)).decode()): "has a salt of 12 bytes; it must be 16",
            VECTOR.replace(iv, base64.b64encode(bytes(16)).decode()): "has an IV of 16 bytes; it must be 12",
            VECTOR.rsplit("$", 1)[0] + "$" + base64.b64encode(bytes(16)).decode(): "has no ciphertext after its 16-byte tag",
            VECTOR + "\n": "is not in the format",
        }
        for payload, reason in cases.items():
            with self.subTest(reason=reason):
                self.assertIn(reason, parse_encrypted(payload))
                self.assertFalse(is_encrypted(payload))
                with self.assertRaises(DecryptionError) as caught:
                    decrypt(payload, VECTOR_PASSPHRASE)
                self.assertIn(reason, str(caught.exception))
        self.assertFalse(is_encrypted(None))

    def test_encrypt_refuses_iterations_out_of_bounds_and_odd_salts(self):
        for iterations in (9_999, 1_000_001, 100_000.0, True):
            with self.subTest(iterations=iterations), self.assertRaises(ValueError):
                encrypt("x", "p", iterations=iterations)
        with self.assertRaises(ValueError):
            encrypt("x", "p", salt=bytes(8))
        with self.assertRaises(ValueError):
            encrypt("x", "p", iv=bytes(16))


if __name__ == "__main__":
    unittest.main()
