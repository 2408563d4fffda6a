"""AES-256 in GCM mode (NIST FIPS 197 and SP 800-38D), in plain Python.

Python's standard library has no AES, and this SDK installs nothing, so the cipher is written out
here: the AES key schedule and block encryption, the counter mode built on it, and GHASH, the
authenticator over GF(2^128). Only what GCM needs is here: a 256-bit key, a 96-bit IV, a 128-bit
tag. It is slow next to a C library (some milliseconds per SMS), which an SMS's few hundred bytes
never notice; it makes no claim to resist timing attacks on the machine that runs it beyond the
tag comparison, which is constant-time. Use the `cryptography` package instead where it is
installed and speed or side channels matter: the output is the same.
"""

import hmac

KEY_BYTES = 32
IV_BYTES = 12
TAG_BYTES = 16
BLOCK_BYTES = 16
_ROUNDS = 14  # AES-256


class InvalidTag(Exception):
    """The tag does not match: the key is wrong, or the ciphertext, IV or tag was altered."""


# --- The AES S-box, computed rather than copied ------------------------------------------------
# S(x) is the multiplicative inverse of x in GF(2^8) (modulo x^8 + x^4 + x^3 + x + 1, with 0 taken
# to 0) put through a fixed affine transform. Computing it keeps 256 magic numbers out of the file.


def _xtime(a):
    """a times x in GF(2^8): a shift, reduced by the AES polynomial when a bit falls off."""
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def _gf_mul(a, b):
    product = 0
    while b:
        if b & 1:
            product ^= a
        a = _xtime(a)
        b >>= 1
    return product


def _build_sbox():
    sbox = [0] * 256
    for x in range(256):
        # The inverse of x is x^254 (the multiplicative group has 255 elements); 0 stays 0.
        inverse = 1
        for _ in range(254):
            inverse = _gf_mul(inverse, x)
        if x == 0:
            inverse = 0
        # The affine transform: b xor each of b rotated left by 1..4 bits, xor 0x63.
        value = inverse
        for shift in range(1, 5):
            value ^= ((inverse << shift) | (inverse >> (8 - shift))) & 0xFF
        sbox[x] = value ^ 0x63
    return sbox


_SBOX = _build_sbox()
# MixColumns multiplies by 2 and 3: tables make the rounds plain lookups.
_MUL2 = [_gf_mul(x, 2) for x in range(256)]
_MUL3 = [_gf_mul(x, 3) for x in range(256)]


# --- AES-256: key schedule and one block ---------------------------------------------------------


def expand_key(key):
    """The 15 round keys (16 bytes each, as lists) of a 32-byte key (FIPS 197, section 5.2)."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"the key must be {KEY_BYTES} bytes")
    words = [list(key[i : i + 4]) for i in range(0, KEY_BYTES, 4)]
    round_constant = 1
    while len(words) < 4 * (_ROUNDS + 1):
        word = list(words[-1])
        if len(words) % 8 == 0:
            # RotWord, SubWord, and the round constant on the first byte.
            word = [_SBOX[b] for b in word[1:] + word[:1]]
            word[0] ^= round_constant
            round_constant = _xtime(round_constant)
        elif len(words) % 8 == 4:
            # AES-256 only: a SubWord in the middle of each group of eight words.
            word = [_SBOX[b] for b in word]
        words.append([a ^ b for a, b in zip(words[-8], word)])
    return [sum(words[r * 4 : r * 4 + 4], []) for r in range(_ROUNDS + 1)]


def encrypt_block(round_keys, block):
    """One 16-byte block through AES-256. The state is 16 bytes, column after column."""
    state = [b ^ k for b, k in zip(block, round_keys[0])]
    for round_number in range(1, _ROUNDS + 1):
        # SubBytes and ShiftRows together: row r of the state moves r columns to the left.
        state = [_SBOX[state[(i + 4 * (i % 4)) % 16]] for i in range(16)]
        if round_number != _ROUNDS:  # the last round has no MixColumns
            mixed = []
            for c in range(0, 16, 4):
                a0, a1, a2, a3 = state[c : c + 4]
                mixed += [
                    _MUL2[a0] ^ _MUL3[a1] ^ a2 ^ a3,
                    a0 ^ _MUL2[a1] ^ _MUL3[a2] ^ a3,
                    a0 ^ a1 ^ _MUL2[a2] ^ _MUL3[a3],
                    _MUL3[a0] ^ a1 ^ a2 ^ _MUL2[a3],
                ]
            state = mixed
        state = [b ^ k for b, k in zip(state, round_keys[round_number])]
    return bytes(state)


# --- GCM ------------------------------------------------------------------------------------------

# x^128 + x^7 + x^2 + x + 1 in GCM's bit order (the first bit of a block is the coefficient of x^0).
_R = 0xE1 << 120


def _gf128_mul(x, y):
    """x times y in GF(2^128) as GCM defines it (SP 800-38D, algorithm 1), blocks as integers."""
    product = 0
    for bit in range(127, -1, -1):
        if (x >> bit) & 1:
            product ^= y
        y = (y >> 1) ^ _R if y & 1 else y >> 1
    return product


def _ghash(h, aad, ciphertext):
    """GHASH of the associated data and the ciphertext, each zero-padded to whole blocks, then
    their lengths in bits (64 bits each)."""
    def blocks(data):
        for i in range(0, len(data), BLOCK_BYTES):
            yield data[i : i + BLOCK_BYTES].ljust(BLOCK_BYTES, b"\0")

    lengths = (len(aad) * 8).to_bytes(8, "big") + (len(ciphertext) * 8).to_bytes(8, "big")
    tag = 0
    for block in [*blocks(aad), *blocks(ciphertext), lengths]:
        tag = _gf128_mul(tag ^ int.from_bytes(block, "big"), h)
    return tag.to_bytes(BLOCK_BYTES, "big")


def _ctr(round_keys, counter_block, data):
    """GCTR: data xor the encryptions of counter_block, counter_block + 1, ... (the counter being
    the block's last 32 bits, wrapping)."""
    prefix, counter = counter_block[:12], int.from_bytes(counter_block[12:], "big")
    out = bytearray()
    for i in range(0, len(data), BLOCK_BYTES):
        stream = encrypt_block(round_keys, prefix + counter.to_bytes(4, "big"))
        out += bytes(a ^ b for a, b in zip(data[i : i + BLOCK_BYTES], stream))
        counter = (counter + 1) & 0xFFFFFFFF
    return bytes(out)


def _setup(key, iv):
    if len(iv) != IV_BYTES:
        raise ValueError(f"the IV must be {IV_BYTES} bytes")
    round_keys = expand_key(key)
    h = int.from_bytes(encrypt_block(round_keys, bytes(BLOCK_BYTES)), "big")
    # With a 96-bit IV the first counter block is the IV followed by 1; the tag is masked with
    # its encryption, and the message starts at the next counter.
    j0 = bytes(iv) + b"\0\0\0\1"
    first = bytes(iv) + b"\0\0\0\2"
    return round_keys, h, j0, first


def _tag(round_keys, h, j0, aad, ciphertext):
    mask = encrypt_block(round_keys, j0)
    return bytes(a ^ b for a, b in zip(_ghash(h, aad, ciphertext), mask))


def seal(key, iv, plaintext, aad=b""):
    """AES-256-GCM: the ciphertext followed by the 16-byte tag."""
    round_keys, h, j0, first = _setup(key, iv)
    ciphertext = _ctr(round_keys, first, bytes(plaintext))
    return ciphertext + _tag(round_keys, h, j0, bytes(aad), ciphertext)


def open_sealed(key, iv, sealed, aad=b""):
    """The plaintext of ciphertext + tag; InvalidTag when the tag does not match. The tag is
    checked (in constant time) before anything is decrypted: a forgery yields nothing."""
    if len(sealed) < TAG_BYTES:
        raise InvalidTag("shorter than a tag")
    round_keys, h, j0, first = _setup(key, iv)
    ciphertext, tag = bytes(sealed[:-TAG_BYTES]), bytes(sealed[-TAG_BYTES:])
    if not hmac.compare_digest(_tag(round_keys, h, j0, bytes(aad), ciphertext), tag):
        raise InvalidTag("the tag does not match")
    return _ctr(round_keys, first, ciphertext)
