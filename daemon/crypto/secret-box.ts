// AES-256-GCM for what the gateway keeps secret at rest (raw originals, upstream credentials).
// The key comes from GATEWAY_ENCRYPTION_KEY, or a key file generated in the data dir (0600).
// Each sealed value names its key by a short id, so a daemon holding another key says so
// instead of failing to authenticate the ciphertext.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface Sealed {
  v: 1;
  kid: string;
  iv: string;
  tag: string;
  data: string;
}

export class KeyMismatchError extends Error {}

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  seal(plaintext: string, purpose: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { v: 1, kid: this.keyId, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /** Throws KeyMismatchError for another key's value, and GCM's error for a tampered one. */
  open(sealed: Sealed, purpose: string): string {
    if (sealed.kid !== this.keyId) throw new KeyMismatchError(`sealed with key ${sealed.kid}, this daemon holds ${this.keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }
}

export function isSealed(value: unknown): value is Sealed {
  const v = value as Partial<Sealed> | null;
  return (
    typeof v === 'object'
    && v !== null
    && v.v === 1
    && typeof v.kid === 'string'
    && typeof v.iv === 'string'
    && typeof v.tag === 'string'
    && typeof v.data === 'string'
  );
}

/** GATEWAY_ENCRYPTION_KEY when set, else $GATEWAY_DATA_DIR/encryption.key (created 0600 on first start). */
export async function loadSecretBox(configuredKey: string | undefined, dataDir: string): Promise<SecretBox> {
  if (configuredKey) return new SecretBox(Buffer.from(configuredKey, 'base64'));
  const file = path.join(dataDir, 'encryption.key');
  if (!existsSync(file)) {
    await fs.writeFile(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return new SecretBox(Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64'));
}
