// The end-to-end ciphertext format (docs/encryption.md): the documented test vector, computed
// independently, is what encrypt gives for its inputs; decrypt opens it; anything else (another
// passphrase, one altered byte, a payload out of the format) is refused, never answered with
// garbage.
import { expect } from 'chai';
import { decrypt, DecryptionError, encrypt, isEncrypted, parseEncrypted } from '../../src/common/end-to-end.ts';

const VECTOR = {
  passphrase: 'correct horse battery staple',
  salt: Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'),
  iv: Buffer.from('a0a1a2a3a4a5a6a7a8a9aaab', 'hex'),
  iterations: 100_000,
  plaintext: 'Hello from the gateway 👋',
  output: '$aes-256-gcm/pbkdf2-sha256$i=100000$AAECAwQFBgcICQoLDA0ODw==$oKGio6Slpqeoqaqr$YTYXOSpmmUX44+diy7tD8B9iwG3DpzAeazmOW8hy8NP6JrZ/v8ZGZ49QTQ==',
};

async function rejects(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('end-to-end encryption: the ciphertext format', () => {
  it('encrypts the test vector of docs/encryption.md to its exact output, and decrypts it back', async () => {
    const { passphrase, salt, iv, iterations, plaintext, output } = VECTOR;
    expect(await encrypt(plaintext, passphrase, { salt, iv, iterations })).to.equal(output);
    expect(await decrypt(output, passphrase)).to.equal(plaintext);
  });

  it('gives every encryption its own salt and IV, so equal texts never look equal', async () => {
    const [a, b] = await Promise.all([encrypt('+79161234567', 'pass'), encrypt('+79161234567', 'pass')]);
    expect(a).to.not.equal(b);
    const [pa, pb] = [parseEncrypted(a), parseEncrypted(b)];
    if (typeof pa === 'string' || typeof pb === 'string') throw new Error('not in the format');
    expect(pa.iterations).to.equal(100_000);
    expect(pa.salt.equals(pb.salt)).to.equal(false);
    expect(pa.iv.equals(pb.iv)).to.equal(false);
    expect(await decrypt(a, 'pass')).to.equal('+79161234567');
  });

  it('refuses another passphrase and an altered ciphertext with a DecryptionError', async () => {
    const error = await rejects(decrypt(VECTOR.output, 'Tr0ub4dor&3'));
    expect(error).to.be.instanceOf(DecryptionError);
    const sealed = VECTOR.output.split('$').at(-1)!;
    const bytes = Buffer.from(sealed, 'base64');
    bytes[0]! ^= 1;
    const altered = VECTOR.output.slice(0, -sealed.length) + bytes.toString('base64');
    expect(await rejects(decrypt(altered, VECTOR.passphrase))).to.be.instanceOf(DecryptionError);
  });

  for (const [what, payload, says] of [
    ['plain text', 'Hello', 'is not in the format'],
    ['another scheme', VECTOR.output.replace('aes-256-gcm', 'aes-128-gcm'), 'is not in the format'],
    ['base64 that is not', VECTOR.output.replace('AAECAwQF', 'AAEC*wQF'), 'is not in the format'],
    ['too few iterations', VECTOR.output.replace('i=100000', 'i=1000'), '1000 iterations'],
    ['too many iterations', VECTOR.output.replace('i=100000', 'i=5000000'), '5000000 iterations'],
    ['a short salt', VECTOR.output.replace('AAECAwQFBgcICQoLDA0ODw==', 'AAECAwQFBgcICQoL'), 'salt of 12 bytes'],
    ['a long IV', VECTOR.output.replace('oKGio6Slpqeoqaqr', 'oKGio6Slpqeoqaqrrrrr'), 'IV of 15 bytes'],
    ['nothing past the tag', VECTOR.output.replace(/\$[^$]+$/, '$AAECAwQFBgcICQoLDA0ODw=='), 'no ciphertext'],
  ] as const) {
    it(`says what is wrong with a payload with ${what}`, async () => {
      expect(parseEncrypted(payload)).to.be.a('string').and.to.contain(says);
      expect(isEncrypted(payload)).to.equal(false);
      expect(await rejects(decrypt(payload, VECTOR.passphrase))).to.be.instanceOf(DecryptionError);
    });
  }
});
