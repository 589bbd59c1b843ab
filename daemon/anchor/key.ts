// The key that signs anchor transactions: a file (GATEWAY_ANCHOR_KEY_FILE) holding one 0x-prefixed
// secp256k1 private key. A missing, unreadable or malformed file stops start-up; no message, log
// line or error ever carries the key or any part of the file's content.
import fs from 'node:fs/promises';
import type { PrivateKeyAccount } from 'viem/accounts';

export class AnchorKeyError extends Error {}

const KEY_SHAPE = /^0x[0-9a-fA-F]{64}$/;

/** The account of the key in `file`; throws AnchorKeyError naming the file, never its content. */
export async function loadAnchorKey(file: string): Promise<PrivateKeyAccount> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new AnchorKeyError(`GATEWAY_ANCHOR_KEY_FILE ${file} cannot be read (${code})`);
  }
  const key = text.trim();
  if (!KEY_SHAPE.test(key)) {
    throw new AnchorKeyError(`GATEWAY_ANCHOR_KEY_FILE ${file} does not hold a 0x-prefixed 32-byte hex secp256k1 private key`);
  }
  // viem is loaded only by a daemon that anchors (its modules cost the others' heap for nothing).
  const { privateKeyToAccount } = await import('viem/accounts');
  try {
    return privateKeyToAccount(key as `0x${string}`);
  } catch {
    // Zero or past the curve order; viem's own message is not passed on, in case it quotes the key.
    throw new AnchorKeyError(`GATEWAY_ANCHOR_KEY_FILE ${file} holds a value that is not a valid secp256k1 private key`);
  }
}
