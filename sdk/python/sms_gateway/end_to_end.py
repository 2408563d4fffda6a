"""End-to-end encryption of an SMS's text and recipient, in the one format every client and phone
of the gateway share (docs/encryption.md of the gateway, which has a test vector):

    $aes-256-gcm/pbkdf2-sha256$i=<iterations>$<salt>$<iv>$<ciphertext and tag>

AES-256-GCM with a key derived from the passphrase by PBKDF2-HMAC-SHA256 (32 bytes), a random
16-byte salt and a random 12-byte IV for every value encrypted, the 16-byte tag appended to the
ciphertext; salt, IV and ciphertext in standard base64 with padding. The same functions as the
TypeScript SDK's (encrypt, decrypt, is_encrypted, parse_encrypted); AES-GCM is written out in
_aes_gcm.py, as the standard library has none."""

import base64
import hashlib
import os
import re
from collections import namedtuple

from . import _aes_gcm

E2E_SCHEME = "aes-256-gcm/pbkdf2-sha256"
#: What encrypt uses unless told otherwise: about 0.1 s on a phone, once per value.
DEFAULT_ITERATIONS = 100_000
#: Iterations a payload may name. Below, a passphrase is too cheap to guess; above, a phone would
#: spend seconds per SMS deriving the key, which a hostile client could use to stall it.
MIN_ITERATIONS = 10_000
MAX_ITERATIONS = 1_000_000
SALT_BYTES = 16
IV_BYTES = _aes_gcm.IV_BYTES
TAG_BYTES = _aes_gcm.TAG_BYTES

_BASE64 = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
_FORMAT = re.compile(rf"\$aes-256-gcm/pbkdf2-sha256\$i=([1-9][0-9]{{0,6}})\$({_BASE64})\$({_BASE64})\$({_BASE64})")

#: A payload's parts; `sealed` is the ciphertext followed by the 16-byte GCM tag.
EncryptedParts = namedtuple("EncryptedParts", ["iterations", "salt", "iv", "sealed"])


class DecryptionError(Exception):
    """The payload is not in the format, or the passphrase does not open it (GCM's tag fails)."""


def parse_encrypted(payload):
    """The EncryptedParts of a payload in the format, or a str saying why it is not one (in words
    a client can act on)."""
    match = _FORMAT.fullmatch(payload) if isinstance(payload, str) else None
    if not match:
        return f"is not in the format ${E2E_SCHEME}$i=<iterations>$<salt base64>$<iv base64>$<ciphertext base64>"
    iterations = int(match.group(1))
    if iterations < MIN_ITERATIONS or iterations > MAX_ITERATIONS:
        return f"names {iterations} iterations; {MIN_ITERATIONS}-{MAX_ITERATIONS} are accepted"
    salt, iv, sealed = (base64.b64decode(match.group(n)) for n in (2, 3, 4))
    if len(salt) != SALT_BYTES:
        return f"has a salt of {len(salt)} bytes; it must be {SALT_BYTES}"
    if len(iv) != IV_BYTES:
        return f"has an IV of {len(iv)} bytes; it must be {IV_BYTES}"
    if len(sealed) <= TAG_BYTES:
        return f"has no ciphertext after its {TAG_BYTES}-byte tag"
    return EncryptedParts(iterations, salt, iv, sealed)


def is_encrypted(payload):
    """Whether a value is in the format (it says nothing of whether any passphrase opens it)."""
    return not isinstance(parse_encrypted(payload), str)


def encrypt(text, passphrase, iterations=DEFAULT_ITERATIONS, salt=None, iv=None):
    """Encrypts text (UTF-8) with a passphrase, in the format above. A fixed salt and iv are for
    test vectors only: an IV used twice under one key gives GCM away."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be an integer from {MIN_ITERATIONS} to {MAX_ITERATIONS}")
    salt = os.urandom(SALT_BYTES) if salt is None else bytes(salt)
    iv = os.urandom(IV_BYTES) if iv is None else bytes(iv)
    if len(salt) != SALT_BYTES or len(iv) != IV_BYTES:
        raise ValueError(f"salt must be {SALT_BYTES} bytes and iv {IV_BYTES}")
    sealed = _aes_gcm.seal(_derive_key(passphrase, salt, iterations), iv, text.encode("utf-8"))
    return f"${E2E_SCHEME}$i={iterations}${_b64(salt)}${_b64(iv)}${_b64(sealed)}"


def decrypt(payload, passphrase):
    """Decrypts a payload in the format with a passphrase; DecryptionError when it cannot."""
    parts = parse_encrypted(payload)
    if isinstance(parts, str):
        raise DecryptionError(f"the payload {parts}")
    key = _derive_key(passphrase, parts.salt, parts.iterations)
    try:
        return _aes_gcm.open_sealed(key, parts.iv, parts.sealed).decode("utf-8")
    except (_aes_gcm.InvalidTag, UnicodeDecodeError):
        raise DecryptionError("the passphrase does not open this payload (or it was altered)") from None


def _derive_key(passphrase, salt, iterations):
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf-8"), salt, iterations, _aes_gcm.KEY_BYTES)


def _b64(data):
    return base64.b64encode(data).decode("ascii")
