// C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 keys, and the tlog-checkpoint
// body they carry (https://c2sp.org/tlog-checkpoint): what the daemon signs over a project's
// Merkle root, and what gatewayctl checks offline. Verifier keys use the Go note package's text
// form, "<name>+<hex key id>+<base64(0x01 || public key)>", so Go tooling can check our notes.
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  assertEd25519Key,
  CONTROL,
  isValidName,
  keyIdInput,
  NoteError,
  openNoteText,
  parseCheckpointText,
  ROOT_SIZE,
  SIG_PREFIX,
  splitVerifierKey,
} from './note-text.js';
import { isWellFormed } from './text.js';

export { NoteError };

export interface Checkpoint {
  readonly origin: string;
  /** Tree size; only sizes up to Number.MAX_SAFE_INTEGER are accepted. */
  readonly size: number;
  readonly root: Buffer;
  /** Opaque non-empty lines after the root; NOT RECOMMENDED by the spec, kept for parsing. */
  readonly extensions?: readonly string[];
}

export interface NoteSigner {
  readonly name: string;
  /** An Ed25519 private key. */
  readonly privateKey: KeyObject;
}

export interface NoteVerifier {
  readonly name: string;
  /** An Ed25519 public key (a private key is accepted and its public half used). */
  readonly publicKey: KeyObject;
}

export interface ParsedVerifierKey extends NoteVerifier {
  /** Eight lower-case hex digits. */
  readonly keyId: string;
}

export interface SignedNote {
  readonly note: string;
  /** Key ID of the signature just added, eight lower-case hex digits. */
  readonly keyId: string;
}

export type NoteFailure = 'malformed' | 'no_signature' | 'bad_signature';
export type NoteVerdict =
  | { readonly ok: true; readonly body: string }
  | { readonly ok: false; readonly reason: NoteFailure; readonly detail: string };

const ALG_ED25519 = 0x01;

export function formatCheckpoint(cp: Checkpoint): string {
  if (typeof cp.origin !== 'string' || cp.origin === '' || /[\x00-\x1f]/.test(cp.origin))
    throw new NoteError('checkpoint origin must be one non-empty line');
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw new NoteError(`checkpoint size ${cp.size} is not a safe non-negative integer`);
  if (!Buffer.isBuffer(cp.root) || cp.root.length !== ROOT_SIZE) throw new NoteError(`checkpoint root must be a ${ROOT_SIZE}-byte Buffer`);
  const extensions = cp.extensions ?? [];
  if (extensions.some((line) => line === '' || /[\x00-\x1f]/.test(line)))
    throw new NoteError('checkpoint extension lines must be non-empty single lines');
  return [cp.origin, String(cp.size), cp.root.toString('base64'), ...extensions].join('\n') + '\n';
}

/** Parses a checkpoint body (the text of a verified note); throws NoteError when it is not one. */
export function parseCheckpoint(body: string): Checkpoint {
  const cp = parseCheckpointText(body);
  return { ...cp, root: toBuffer(cp.root) };
}

/** Signs a note body (text ending in a newline) with one key. */
export function signNote(body: string, signer: NoteSigner): SignedNote {
  if (typeof body !== 'string' || !body.endsWith('\n')) throw new NoteError('a note body must end with a newline');
  if (CONTROL.test(body) || !isWellFormed(body)) throw new NoteError('a note body must be well-formed text without control characters');
  const line = signatureLine(body, signer);
  return { note: `${body}\n${line.text}`, keyId: line.keyId };
}

/** Adds one more signature to a signed note, replacing any earlier one by the same key. */
export function addSignature(note: string, signer: NoteSigner): SignedNote {
  const parsed = openNote(note);
  if (!parsed.ok) throw new NoteError(`cannot add a signature to a malformed note: ${parsed.detail}`);
  const line = signatureLine(parsed.body, signer);
  const kept = parsed.signatures.filter((s) => s.name !== signer.name || s.keyId.toString('hex') !== line.keyId);
  return { note: `${parsed.body}\n${kept.map((s) => s.line + '\n').join('')}${line.text}`, keyId: line.keyId };
}

/**
 * Checks a note against one key. Signatures by other keys are ignored (the spec requires it);
 * every signature that names this key must verify; at least one must be present.
 */
export function verifyNote(note: string | Uint8Array, key: NoteVerifier): NoteVerdict {
  const text = typeof note === 'string' ? note : decodeUtf8(note);
  if (text === null) return { ok: false, reason: 'malformed', detail: 'the note is not valid UTF-8' };
  const parsed = openNote(text);
  if (!parsed.ok) return { ok: false, reason: 'malformed', detail: parsed.detail };
  const publicKey = ed25519Public(key.publicKey);
  const id = keyIdOf(key.name, publicKey);
  const mine = parsed.signatures.filter((s) => s.name === key.name && s.keyId.equals(id));
  if (mine.length === 0) return { ok: false, reason: 'no_signature', detail: `no signature by ${key.name}+${id.toString('hex')}` };
  const message = Buffer.from(parsed.body, 'utf8');
  for (const s of mine) {
    if (s.signature.length !== 64 || !verify(null, message, publicKey, s.signature)) {
      return { ok: false, reason: 'bad_signature', detail: `the signature by ${key.name}+${id.toString('hex')} does not verify` };
    }
  }
  return { ok: true, body: parsed.body };
}

/** The Go note package's verifier key for a name and an Ed25519 public key. */
export function verifierKey(key: NoteVerifier): string {
  if (!isValidName(key.name)) throw new NoteError(`invalid key name ${JSON.stringify(key.name)}`);
  const publicKey = ed25519Public(key.publicKey);
  const encoded = Buffer.concat([Buffer.from([ALG_ED25519]), rawPublicKey(publicKey)]).toString('base64');
  return `${key.name}+${keyIdOf(key.name, publicKey).toString('hex')}+${encoded}`;
}

/** Parses a verifier key; throws NoteError unless it is a well-formed Ed25519 key whose ID matches. */
export function parseVerifierKey(vkey: string): ParsedVerifierKey {
  const { name, idHex, encoded } = splitVerifierKey(vkey);
  if (!createHash('sha256').update(keyIdInput(name, encoded)).digest().subarray(0, 4).equals(Buffer.from(idHex, 'hex'))) {
    throw new NoteError('the verifier key ID does not match its name and key');
  }
  assertEd25519Key(encoded);
  const x = toBuffer(encoded.subarray(1)).toString('base64url');
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  return { name, keyId: idHex.toLowerCase(), publicKey };
}

/** SHA-256(name || 0x0A || 0x01 || public key)[:4], as eight hex digits. */
export function keyId(name: string, publicKey: KeyObject): string {
  return keyIdOf(name, ed25519Public(publicKey)).toString('hex');
}

interface SignatureLine {
  readonly line: string;
  readonly name: string;
  readonly keyId: Buffer;
  readonly signature: Buffer;
}

type OpenedNote = { ok: true; body: string; signatures: SignatureLine[] } | { ok: false; detail: string };

// Splits a note at its last blank line and parses every signature line, verifying none.
function openNote(note: string): OpenedNote {
  const opened = openNoteText(note);
  if (!opened.ok) return opened;
  const signatures = opened.signatures.map((s) => ({ ...s, keyId: toBuffer(s.keyId), signature: toBuffer(s.signature) }));
  return { ok: true, body: opened.body, signatures };
}

function signatureLine(body: string, signer: NoteSigner): { text: string; keyId: string } {
  if (!isValidName(signer.name)) throw new NoteError(`invalid key name ${JSON.stringify(signer.name)}`);
  const { privateKey } = signer;
  if (privateKey?.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519')
    throw new NoteError('the signing key must be an Ed25519 private key');
  const id = keyIdOf(signer.name, createPublicKey(privateKey));
  const signature = sign(null, Buffer.from(body, 'utf8'), privateKey);
  return { text: `${SIG_PREFIX}${signer.name} ${Buffer.concat([id, signature]).toString('base64')}\n`, keyId: id.toString('hex') };
}

function keyIdOf(name: string, publicKey: KeyObject): Buffer {
  return createHash('sha256')
    .update(name, 'utf8')
    .update(Buffer.from([0x0a, ALG_ED25519]))
    .update(rawPublicKey(publicKey))
    .digest()
    .subarray(0, 4);
}

function ed25519Public(key: KeyObject): KeyObject {
  if (key?.asymmetricKeyType !== 'ed25519' || key.type === 'secret') throw new NoteError('the key must be an Ed25519 key');
  return key.type === 'private' ? createPublicKey(key) : key;
}

function rawPublicKey(publicKey: KeyObject): Buffer {
  return Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
