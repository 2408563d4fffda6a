// Webhook signing secrets are encrypted at rest (AES-256-GCM). HMAC signing needs the secret
// itself, so a hash would not do. The key comes from WEBHOOK_SECRET_KEY, or, for the zero-config
// start, from a key file created once in DATA_DIR (several nodes must share WEBHOOK_SECRET_KEY).
// Which key a process holds is checked against the database at start (secret-key-check.ts): a
// command run with another DATA_DIR would otherwise make a key of its own and seal with it.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StartupError } from '../../../common/errors.ts';
import { makeDirectory } from '../../../common/make-directory.ts';

/**
 * Where a process's key came from, as its refusal names it. A key file not there yet is made in
 * memory and written only once the database has accepted the key (secret-key-check.ts), so that a
 * command refused for running with another DATA_DIR leaves no key file behind.
 */
export type KeySource = { kind: 'variable' } | { kind: 'file'; file: string; written: boolean } | { kind: 'throwaway' };

/** A sealed secret this process's key cannot open: sealed under another key, or damaged. */
export class SecretUnreadableError extends Error {
  constructor() {
    super('a stored secret cannot be decrypted with this gateway\'s key (WEBHOOK_SECRET_KEY, or webhook-secret.key in DATA_DIR)');
    this.name = 'SecretUnreadableError';
  }
}

export class SecretBox {
  constructor(
    private readonly key: Buffer,
    private keySource: KeySource = { kind: 'variable' },
  ) {}

  get source(): KeySource {
    return this.keySource;
  }

  private set source(source: KeySource) {
    this.keySource = source;
  }

  static fromConfig(key: Buffer | undefined, dataDir: string): SecretBox {
    if (key) return new SecretBox(key);
    // DATA_DIR=:memory: (tests, throwaway runs): a key that dies with the process, never checked.
    if (dataDir === ':memory:') return new SecretBox(randomBytes(32), { kind: 'throwaway' });
    const file = join(dataDir, 'webhook-secret.key');
    if (!existsSync(file)) return new SecretBox(randomBytes(32), { kind: 'file', file, written: false });
    return new SecretBox(readKeyFile(file), { kind: 'file', file, written: true });
  }

  /**
   * Writes a key made for a key file not there yet, once the database has accepted it. Should
   * another process with the same DATA_DIR have written one meanwhile, this key is not that one:
   * refused, as the database will hold only one of them.
   */
  saveKeyFile(): void {
    if (this.source.kind !== 'file' || this.source.written) return;
    const { file } = this.source;
    try {
      makeDirectory(dirname(file));
      writeFileSync(file, this.key.toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      if (code === 'EEXIST') {
        if (!readKeyFile(file).equals(this.key)) throw error;
      } else {
        // A DATA_DIR this user cannot make or write: a setting to fix, said in one line.
        throw new StartupError(`DATA_DIR ${dirname(file)} cannot be used (${code ?? message}): the webhook secret key file is kept there; set DATA_DIR to a directory this user may create or write`);
      }
    }
    this.source = { kind: 'file', file, written: true };
  }

  /**
   * What the database keeps to tell this key from another: an HMAC of a fixed text under the key.
   * It says nothing of the key itself, and the same key always gives the same value.
   */
  checkValue(): string {
    return createHmac('sha256', this.key).update('sms-gateway secret key check v1', 'utf8').digest('hex');
  }

  seal(plain: string): string {
    // Nothing is sealed under a key that is not kept: a process that skipped the check still writes it.
    this.saveKeyFile();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  /** The sealed secret in clear; SecretUnreadableError when this key cannot open it. */
  open(sealed: string): string {
    try {
      const raw = Buffer.from(sealed.replace(/^v1:/, ''), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      // GCM's own message ("Unsupported state or unable to authenticate data") tells nobody what to do.
      throw new SecretUnreadableError();
    }
  }

  /** True when this key opens `sealed`. */
  opens(sealed: string): boolean {
    try {
      this.open(sealed);
      return true;
    } catch {
      return false;
    }
  }
}

function readKeyFile(file: string): Buffer {
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}
