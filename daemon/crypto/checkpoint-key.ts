// The Ed25519 key that signs ledger checkpoints. It lives in a file, never in the database, so
// that someone who can rewrite the database cannot also re-sign its history. Unset, the file is
// generated on first start in the data dir (0600); every daemon of one database must share it
// (GATEWAY_CHECKPOINT_KEY_FILE), as they share the encryption key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs/promises';

export interface CheckpointKey {
  readonly name: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export class CheckpointKeyError extends Error {}

export async function loadCheckpointKey(file: string, name: string, generateIfMissing: boolean): Promise<CheckpointKey> {
  let pem = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw new CheckpointKeyError(`checkpoint key ${file}: ${err.code ?? 'unreadable'}`);
  });
  if (pem === null) {
    if (!generateIfMissing) throw new CheckpointKeyError(`checkpoint key ${file} does not exist`);
    const { privateKey } = generateKeyPairSync('ed25519');
    const fresh = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await fs.writeFile(file, fresh, { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw new CheckpointKeyError(`checkpoint key ${file}: ${err.code ?? 'not writable'}`);
    });
    pem = await fs.readFile(file, 'utf8');
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw new CheckpointKeyError(`checkpoint key ${file} is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new CheckpointKeyError(`checkpoint key ${file} is not an Ed25519 key`);
  return { name, privateKey, publicKey: createPublicKey(privateKey) };
}
