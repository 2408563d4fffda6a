// Webhook signing secrets are encrypted at rest (AES-256-GCM). HMAC signing needs the secret
// itself, so a hash would not do. The key comes from WEBHOOK_SECRET_KEY, or, for the zero-config
// start, from a key file created once in DATA_DIR (several nodes must share WEBHOOK_SECRET_KEY).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class SecretBox {
  constructor(private readonly key: Buffer) {}

  static fromConfig(key: Buffer | undefined, dataDir: string): SecretBox {
    if (key) return new SecretBox(key);
    const file = join(dataDir === ':memory:' ? '.' : dataDir, 'webhook-secret.key');
    if (dataDir === ':memory:') return new SecretBox(randomBytes(32));
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    }
    return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed.replace(/^v1:/, ''), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
