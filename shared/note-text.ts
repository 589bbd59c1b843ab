// The text side of C2SP signed notes, tlog checkpoints and Go note verifier keys: splitting and
// parsing, no cryptography and no node: modules, over Uint8Array. signed-note.ts (node:crypto, for
// the daemon and gatewayctl) and the web console's proof check (Web Crypto) both parse with it, so
// a note one accepts the other reads the same way.
import { isWellFormed } from './text.js';

/** Raised for malformed input to the parsers and for invalid arguments to the formatters. */
export class NoteError extends Error {
  override name = 'NoteError';
}

export const SIG_PREFIX = '\u2014 ';
export const ALG_ED25519 = 0x01;
export const ROOT_SIZE = 32;
const MAX_SIGNATURES = 100; // the spec asks verifiers to accept at least 16
// Control characters other than newline; a note may contain none of them.
export const CONTROL = /[\x00-\x09\x0b-\x1f]/;

export interface SignatureLineText {
  readonly line: string;
  readonly name: string;
  readonly keyId: Uint8Array;
  readonly signature: Uint8Array;
}

export type OpenedNoteText = { ok: true; body: string; signatures: SignatureLineText[] } | { ok: false; detail: string };

/** Splits a note at its last blank line and parses every signature line, verifying none. */
export function openNoteText(note: string): OpenedNoteText {
  if (CONTROL.test(note)) return { ok: false, detail: 'the note contains control characters' };
  if (!isWellFormed(note)) return { ok: false, detail: 'the note is not well-formed Unicode' };
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return { ok: false, detail: 'no blank line separates the text from the signatures' };
  const lines = note.slice(split + 2).split('\n');
  if (lines.pop() !== '') return { ok: false, detail: 'the last signature line lacks its newline' };
  if (lines.length === 0) return { ok: false, detail: 'no signature lines' };
  if (lines.length > MAX_SIGNATURES) return { ok: false, detail: `more than ${MAX_SIGNATURES} signatures` };
  const signatures: SignatureLineText[] = [];
  for (const line of lines) {
    const parsed = parseSignatureLine(line);
    if (parsed === null) return { ok: false, detail: `malformed signature line ${JSON.stringify(line)}` };
    signatures.push(parsed);
  }
  return { ok: true, body: note.slice(0, split + 1), signatures };
}

function parseSignatureLine(line: string): SignatureLineText | null {
  if (!line.startsWith(SIG_PREFIX)) return null;
  const rest = line.slice(SIG_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) return null;
  const name = rest.slice(0, space);
  const blob = decodeBase64(rest.slice(space + 1));
  if (!isValidName(name) || blob === null || blob.length < 5) return null;
  return { line, name, keyId: blob.subarray(0, 4), signature: blob.subarray(4) };
}

export interface CheckpointText {
  readonly origin: string;
  readonly size: number;
  readonly root: Uint8Array;
  readonly extensions: readonly string[];
}

/** Parses a checkpoint body (the text of a verified note); throws NoteError when it is not one. */
export function parseCheckpointText(body: string): CheckpointText {
  if (typeof body !== 'string' || !body.endsWith('\n') || CONTROL.test(body))
    throw new NoteError('a checkpoint is newline-terminated text without control characters');
  const [origin, size, root, ...extensions] = body.slice(0, -1).split('\n');
  if (!origin || size === undefined || root === undefined) throw new NoteError('a checkpoint has an origin, a size and a root line');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new NoteError(`checkpoint size ${JSON.stringify(size)} is not a decimal safe integer`);
  const rootHash = decodeBase64(root);
  if (rootHash === null || rootHash.length !== ROOT_SIZE) throw new NoteError(`checkpoint root is not the base64 of ${ROOT_SIZE} bytes`);
  if (extensions.some((line) => line === '')) throw new NoteError('checkpoint extension lines must be non-empty');
  return { origin, size: Number(size), root: rootHash, extensions };
}

export interface VerifierKeyText {
  readonly name: string;
  /** Eight hex digits as written. */
  readonly idHex: string;
  /** The algorithm byte and the key: what the key ID hashes after the name and a newline. */
  readonly encoded: Uint8Array;
}

/** Splits a verifier key `name+keyid+base64`; throws NoteError when its text is malformed. */
export function splitVerifierKey(vkey: string): VerifierKeyText {
  const first = vkey.indexOf('+');
  const second = vkey.indexOf('+', first + 1);
  if (first < 0 || second < 0) throw new NoteError('a verifier key is <name>+<key id>+<key>');
  const name = vkey.slice(0, first);
  const idHex = vkey.slice(first + 1, second);
  const encoded = decodeBase64(vkey.slice(second + 1));
  if (!isValidName(name) || !/^[0-9a-fA-F]{8}$/.test(idHex) || encoded === null || encoded.length === 0)
    throw new NoteError('malformed verifier key');
  return { name, idHex, encoded };
}

/** Throws NoteError unless the key is an Ed25519 one (after its ID was checked). */
export function assertEd25519Key(encoded: Uint8Array): void {
  if (encoded[0] !== ALG_ED25519) throw new NoteError(`unknown signature type 0x${encoded[0]!.toString(16).padStart(2, '0')}`);
  if (encoded.length !== 33) throw new NoteError('an Ed25519 verifier key holds 32 bytes');
}

/** What a key ID is the first four bytes of the SHA-256 of: name || 0x0A || encoded key. */
export function keyIdInput(name: string, encoded: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(`${name}\n`);
  const out = new Uint8Array(text.length + encoded.length);
  out.set(text);
  out.set(encoded, text.length);
  return out;
}

// Non-empty, no Unicode white space (Go's unicode.IsSpace), no '+', no control characters.
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && !/[\p{White_Space}+\x00-\x1f]/u.test(name) && isWellFormed(name);
}

// Standard padded base64 (RFC 4648 §4) in its one canonical spelling; a lenient decoder would
// skip invalid characters and accept other spellings of the same bytes.
export function decodeBase64(text: string): Uint8Array | null {
  if (typeof text !== 'string' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return encodeBase64(bytes) === text ? bytes : null;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
