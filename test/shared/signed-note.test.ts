import t from 'tap';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  addSignature,
  formatCheckpoint,
  keyId,
  NoteError,
  parseCheckpoint,
  parseVerifierKey,
  signNote,
  verifierKey,
  verifyNote,
} from '../../shared/signed-note.js';

// Known answers from golang.org/x/mod/sumdb/note (note.go's package example and note_test.go).
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
function privateKeyFromSkey(skey: string): KeyObject {
  const seed = Buffer.from(skey.split('+').slice(4).join('+'), 'base64').subarray(1);
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}
function newSigner(name: string): { name: string; privateKey: KeyObject; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, privateKey, publicKey };
}
const root = Buffer.alloc(32, 7);
const checkpoint = { origin: 'gateway.example/projects/p1', size: 300, root };

t.test('known answers: the Go note package example key, note and signature', async (t) => {
  const peter = parseVerifierKey(PETER_VKEY);
  t.equal(peter.name, 'PeterNeumann');
  t.equal(peter.keyId, 'c74f20a3');
  t.equal(verifierKey(peter), PETER_VKEY, 'the verifier key re-encodes byte for byte');
  const privateKey = privateKeyFromSkey(PETER_SKEY);
  t.equal(keyId('PeterNeumann', createPublicKey(privateKey)), 'c74f20a3', 'key ID = SHA-256(name || 0x0A || 0x01 || key)[:4]');
  const signed = signNote(TEXT, { name: 'PeterNeumann', privateKey });
  t.equal(signed.note, `${TEXT}\n${PETER_SIG}`, 'Ed25519 is deterministic, so our note is the published one');
  t.equal(signed.keyId, 'c74f20a3');
  t.same(verifyNote(signed.note, peter), { ok: true, body: TEXT });

  const enoch = parseVerifierKey(ENOCH_VKEY);
  const both = `${TEXT}\n${PETER_SIG}${ENOCH_SIG}`;
  t.same(verifyNote(both, peter), { ok: true, body: TEXT }, 'the doubly signed note verifies for Peter');
  t.same(verifyNote(both, enoch), { ok: true, body: TEXT }, 'and for Enoch');
  t.same(verifyNote(`${TEXT}\n${ENOCH_SIG}`, peter), {
    ok: false,
    reason: 'no_signature',
    detail: 'no signature by PeterNeumann+c74f20a3',
  });
  const corrupt = PETER_SIG.slice(0, 58) + 'ABCD' + PETER_SIG.slice(58); // note_test.go inserts ABCD at byte 60
  t.match(verifyNote(`${TEXT}\n${corrupt}`, peter), { ok: false, reason: 'bad_signature' });
  t.same(verifyNote(`${TEXT}\n${PETER_SIG}${PETER_SIG}`, peter), { ok: true, body: TEXT }, 'a repeated signature is fine');
});

t.test('known answers: the Go note package rejects these verifier keys, and so do we', async (t) => {
  const accepted: string[] = [];
  const tryKey = (k: string): void => {
    try {
      parseVerifierKey(k);
      accepted.push(k);
    } catch (err) {
      if (!(err instanceof NoteError)) accepted.push(`${k} threw ${String(err)}`);
    }
  };
  for (let i = 0; i <= PETER_VKEY.length; i++) {
    for (let j = i + 1; j <= PETER_VKEY.length; j++) if (i !== 0 || j !== PETER_VKEY.length) tryKey(PETER_VKEY.slice(i, j));
  }
  for (let i = 0; i < PETER_VKEY.length; i++)
    tryKey(PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1));
  t.same(accepted, [], 'every truncation and every one-character change is refused with a NoteError');
  // Go reaches its length check here; its base64 decoder allows the non-zero padding bits of "Y==", ours does not.
  t.throws(
    () => parseVerifierKey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=='),
    NoteError,
    'wrong key length, matching key ID',
  );
  t.throws(
    () => parseVerifierKey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'),
    /unknown signature type 0x65/,
    'unknown algorithm, matching key ID',
  );
  t.equal(
    parseVerifierKey(PETER_VKEY.replace('c74f20a3', 'C74F20A3')).keyId,
    'c74f20a3',
    'upper-case hex is read as the Go parser reads it',
  );
});

t.test('known answers: the Go note package calls these messages malformed, and so do we', async (t) => {
  const peter = parseVerifierKey(PETER_VKEY);
  const bad: [string, string | Uint8Array][] = [
    ['text only', TEXT],
    ['text and a blank line', `${TEXT}\n`],
    ['signature line without its newline', `${TEXT}\n${PETER_SIG.slice(0, -1)}`],
    ['the last of two signature lines without its newline', `${TEXT}\n${PETER_SIG}${ENOCH_SIG.slice(0, -1)}`],
    ['a control character', `\x01${TEXT}\n${PETER_SIG}`],
    ['invalid UTF-8', Buffer.concat([Buffer.from([0xff]), Buffer.from(`${TEXT}\n${PETER_SIG}`)])],
    [
      'a name with a space',
      `${TEXT}\n\u2014 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ],
    ['a line that is no signature', `${TEXT}\n${PETER_SIG}Unexpected line.\n`],
    ['101 signatures', `${TEXT}\n${PETER_SIG.repeat(101)}`],
  ];
  for (const [what, note] of bad) t.match(verifyNote(note, peter), { ok: false, reason: 'malformed' }, what);
  t.same(verifyNote(Buffer.from(`${TEXT}\n${PETER_SIG}`), peter), { ok: true, body: TEXT }, 'the same note as bytes verifies');
});

t.test('a checkpoint round-trips through format, sign, verify and parse', async (t) => {
  const signer = newSigner('gateway.example');
  const body = formatCheckpoint(checkpoint);
  t.equal(body, `gateway.example/projects/p1\n300\n${root.toString('base64')}\n`);
  const signed = signNote(body, signer);
  t.equal(signed.keyId, keyId(signer.name, signer.publicKey));
  t.match(signed.note, new RegExp(`^${body}\\n\u2014 gateway\\.example [A-Za-z0-9+/]{91}=\\n$`), 'one signature line of 4 + 64 bytes');
  const vkey = verifierKey(signer);
  t.match(vkey, new RegExp(`^gateway\\.example\\+${signed.keyId}\\+[A-Za-z0-9+/]{44}$`), 'base64 of 0x01 and 32 key bytes');
  const verdict = verifyNote(signed.note, parseVerifierKey(vkey));
  if (!verdict.ok) throw new Error(verdict.detail);
  t.same(parseCheckpoint(verdict.body), { ...checkpoint, extensions: [] });
  t.same(verifyNote(signed.note, signer), verdict, 'a private key works as the verifier too');
  const empty = formatCheckpoint({ origin: 'o', size: 0, root });
  t.equal(parseCheckpoint(empty).size, 0, 'an empty tree has size 0');
});

t.test('any change to body, size, root, signature or key is caught', async (t) => {
  const signer = newSigner('gateway.example');
  const body = formatCheckpoint(checkpoint);
  const note = signNote(body, signer).note;
  const line = note.slice(body.length + 1);
  const blob = Buffer.from(line.slice('\u2014 gateway.example '.length, -1), 'base64');
  const withBlob = (b: Buffer): string => `${body}\n\u2014 gateway.example ${b.toString('base64')}\n`;
  const flipped = (at: number): Buffer => {
    const b = Buffer.from(blob);
    b[at]! ^= 1;
    return b;
  };
  const cases: [string, string, string][] = [
    ['origin changed', note.replace('projects/p1', 'projects/p2'), 'bad_signature'],
    ['size changed', note.replace('\n300\n', '\n301\n'), 'bad_signature'],
    ['root changed', note.replace(root.toString('base64'), Buffer.alloc(32, 8).toString('base64')), 'bad_signature'],
    ['a line added to the body', `extra\n${note}`, 'bad_signature'],
    ['signature byte changed', withBlob(flipped(10)), 'bad_signature'],
    ['signature truncated', withBlob(blob.subarray(0, 67)), 'bad_signature'],
    ['key ID changed', withBlob(flipped(0)), 'no_signature'],
    // The text ends at the last blank line, so this signs the body plus the first signature line.
    ['a blank line between two signatures', `${note}\n${line}`, 'bad_signature'],
  ];
  for (const [what, tampered, reason] of cases) t.match(verifyNote(tampered, signer), { ok: false, reason }, what);

  const other = newSigner('gateway.example');
  t.match(verifyNote(note, other), { ok: false, reason: 'no_signature' }, 'another key under the same name');
  t.match(
    verifyNote(note, { name: 'other.example', publicKey: signer.publicKey }),
    { ok: false, reason: 'no_signature' },
    'the same key under another name',
  );
  const renamed = note.replace('\u2014 gateway.example ', '\u2014 other.example ');
  t.match(verifyNote(renamed, signer), { ok: false, reason: 'no_signature' }, 'our key ID and signature under another name are not ours');
  const impostor = signNote(body, other).note.slice(body.length + 1);
  const relabelled = Buffer.from(impostor.slice('\u2014 gateway.example '.length, -1), 'base64');
  blob.copy(relabelled, 0, 0, 4);
  t.match(verifyNote(withBlob(relabelled), signer), { ok: false, reason: 'bad_signature' }, "another key's signature under our key ID");
  t.match(
    verifyNote(note + withBlob(relabelled).slice(body.length + 1), signer),
    { ok: false, reason: 'bad_signature' },
    'one good and one bad signature by our key: the note is refused',
  );
});

t.test('a note with several signatures verifies for each key and ignores the others', async (t) => {
  const [a, b, c] = [newSigner('a.example'), newSigner('b.example'), newSigner('c.example')];
  const body = formatCheckpoint(checkpoint);
  const once = signNote(body, a);
  const twice = addSignature(once.note, b);
  const thrice = addSignature(twice.note, c);
  t.equal(thrice.keyId, keyId('c.example', c.publicKey));
  t.equal(thrice.note.split('\n\u2014 ').length - 1, 3, 'three signature lines');
  for (const s of [a, b, c]) t.same(verifyNote(thrice.note, s), { ok: true, body }, `verifies for ${s.name}`);
  t.match(verifyNote(thrice.note, newSigner('d.example')), { ok: false, reason: 'no_signature' });
  t.equal(addSignature(thrice.note, b).note.split('\n\u2014 ').length - 1, 3, "re-signing replaces the signer's earlier line");
  const garbage = `${thrice.note}\u2014 d.example ${Buffer.alloc(68, 1).toString('base64')}\n`;
  t.same(verifyNote(garbage, a), { ok: true, body }, 'an unverifiable signature by an unknown key is ignored');

  const sixteen = Array.from({ length: 16 }, (_, i) => newSigner(`w${i}.example`));
  const crowded = sixteen.reduce((n, s) => addSignature(n, s).note, once.note);
  t.same(verifyNote(crowded, a), { ok: true, body }, '17 signatures are accepted (the spec asks for at least 16)');
});

t.test('malformed notes and bad arguments', async (t) => {
  const signer = newSigner('gateway.example');
  const body = formatCheckpoint(checkpoint);
  const note = signNote(body, signer).note;
  const line = note.slice(body.length + 1);
  const sigB64 = line.slice('\u2014 gateway.example '.length, -1);
  const malformed: [string, string][] = [
    ['no blank line before the signatures', body + line],
    ['body without its final newline', body.slice(0, -1) + '\n' + line],
    ['nothing after the blank line', `${body}\n`],
    ['a hyphen instead of the em dash', `${body}\n- gateway.example ${sigB64}\n`],
    ['no space after the em dash', `${body}\n\u2014gateway.example ${sigB64}\n`],
    ['a name with a space', `${body}\n\u2014 gateway example ${sigB64}\n`],
    ['a name with a plus', `${body}\n\u2014 gateway+example ${sigB64}\n`],
    ['a name with a no-break space', `${body}\n\u2014 gateway\u00a0example ${sigB64}\n`],
    ['an empty name', `${body}\n\u2014  ${sigB64}\n`],
    ['unpadded base64', `${body}\n\u2014 gateway.example ${sigB64.replace(/=+$/, '')}\n`],
    ['base64 with a stray character', `${body}\n\u2014 gateway.example ${sigB64.slice(0, 10)}*${sigB64.slice(11)}\n`],
    ['a signature of four bytes', `${body}\n\u2014 gateway.example AAAAAA==\n`],
    ['CRLF line ends', note.replace(/\n/g, '\r\n')],
    ['a NUL in the body', note.replace('p1', 'p\x001')],
    ['a lone surrogate', note.replace('p1', 'p\ud800')],
  ];
  for (const [what, bad] of malformed) t.match(verifyNote(bad, signer), { ok: false, reason: 'malformed' }, what);
  t.same(verifyNote(note, signer), { ok: true, body }, 'the note those were made from verifies');

  t.throws(() => signNote(body.slice(0, -1), signer), NoteError, 'a body must end with a newline');
  t.throws(() => signNote('a\r\n', signer), NoteError, 'control characters');
  t.throws(() => signNote(body, { ...signer, name: 'gateway example' }), NoteError, 'a name with a space');
  t.throws(() => signNote(body, { ...signer, name: 'gateway+example' }), NoteError, 'a name with a plus');
  t.throws(() => signNote(body, { ...signer, name: '' }), NoteError, 'an empty name');
  t.throws(() => signNote(body, { name: 'x', privateKey: signer.publicKey }), NoteError, 'a public key cannot sign');
  t.throws(() => signNote(body, { name: 'x', privateKey: generateKeyPairSync('ed448').privateKey }), NoteError, 'only Ed25519');
  t.throws(() => verifyNote(note, { name: 'x', publicKey: generateKeyPairSync('ed448').publicKey }), NoteError);
  t.throws(() => addSignature(body, signer), NoteError, 'a body is not a signed note');
});

t.test('notes are split at the last blank line, so texts may contain blank lines', async (t) => {
  const signer = newSigner('poet.example');
  const poem = 'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned \u00e8 subito sera.\n';
  const signed = signNote(poem, signer);
  t.same(verifyNote(signed.note, signer), { ok: true, body: poem });
  // The examples of the C2SP specs are well-formed notes by keys nobody published.
  const c2spNote = `${poem}\n\u2014 quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n`;
  t.match(verifyNote(c2spNote, signer), { ok: false, reason: 'no_signature' }, 'the signed-note example parses');
  const sofa = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
  const sofaNote = `${sofa}\n\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n`;
  t.match(verifyNote(sofaNote, signer), { ok: false, reason: 'no_signature' }, 'the tlog-checkpoint example parses');
  t.same(parseCheckpoint(sofa), {
    origin: 'example.com/behind-the-sofa',
    size: 20852163,
    root: Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64'),
    extensions: [],
  });
});

t.test('checkpoint bodies: exact parsing and formatting', async (t) => {
  const r = root.toString('base64');
  t.same(parseCheckpoint(`o\n5\n${r}\next one\next two\n`).extensions, ['ext one', 'ext two'], 'extension lines are kept');
  t.equal(formatCheckpoint({ ...checkpoint, extensions: ['x'] }), `${formatCheckpoint(checkpoint)}x\n`);
  const bad: [string, string][] = [
    ['no final newline', `o\n5\n${r}`],
    ['two lines', 'o\n5\n'],
    ['empty origin', `\n5\n${r}\n`],
    ['a leading zero', `o\n05\n${r}\n`],
    ['a sign', `o\n+5\n${r}\n`],
    ['a negative size', `o\n-1\n${r}\n`],
    ['an exponent', `o\n5e1\n${r}\n`],
    ['a size past 2^53 - 1', `o\n9007199254740992\n${r}\n`],
    ['a root of 31 bytes', `o\n5\n${Buffer.alloc(31).toString('base64')}\n`],
    ['a root in hex', `o\n5\n${root.toString('hex')}\n`],
    ['a root in non-canonical base64', `o\n5\n${r.slice(0, -2)}9=\n`],
    ['an empty extension line', `o\n5\n${r}\n\next\n`],
    ['a carriage return', `o\r\n5\n${r}\n`],
  ];
  for (const [what, body] of bad) t.throws(() => parseCheckpoint(body), NoteError, what);
  t.equal(parseCheckpoint(`o\n9007199254740991\n${r}\n`).size, Number.MAX_SAFE_INTEGER, 'the largest safe size parses');
  for (const [what, cp] of [
    ['an empty origin', { ...checkpoint, origin: '' }],
    ['an origin with a newline', { ...checkpoint, origin: 'a\nb' }],
    ['a fractional size', { ...checkpoint, size: 1.5 }],
    ['a negative size', { ...checkpoint, size: -1 }],
    ['an unsafe size', { ...checkpoint, size: 2 ** 53 }],
    ['a short root', { ...checkpoint, root: Buffer.alloc(31) }],
    ['an empty extension', { ...checkpoint, extensions: [''] }],
  ] as const)
    t.throws(() => formatCheckpoint(cp), NoteError, what);
});

t.test('verifier keys: encode, parse and refuse', async (t) => {
  const signer = newSigner('gateway.example/log');
  const vkey = verifierKey(signer);
  const parsed = parseVerifierKey(vkey);
  t.equal(parsed.name, 'gateway.example/log');
  t.equal(parsed.keyId, keyId(signer.name, signer.publicKey));
  t.same(parsed.publicKey.export({ format: 'jwk' }), signer.publicKey.export({ format: 'jwk' }));
  const raw = Buffer.from(signer.publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const withId = (name: string, key: Buffer): string => {
    const id = createHashHex(name, key);
    return `${name}+${id}+${key.toString('base64')}`;
  };
  t.equal(withId('gateway.example/log', Buffer.concat([Buffer.from([1]), raw])), vkey, 'the test helper builds the same key');
  t.throws(() => parseVerifierKey(withId('gateway.example/log', Buffer.concat([Buffer.from([2]), raw]))), /unknown signature type 0x02/);
  t.throws(() => parseVerifierKey(withId('gateway.example/log', Buffer.concat([Buffer.from([1]), raw.subarray(1)]))), /32 bytes/);
  t.throws(() => parseVerifierKey(withId('gateway example', Buffer.concat([Buffer.from([1]), raw]))), NoteError, 'a name with a space');
  t.throws(() => parseVerifierKey(vkey.replace(parsed.keyId, '00000000')), /does not match/);
  t.throws(() => parseVerifierKey(vkey.replace(`+${parsed.keyId}+`, `+${parsed.keyId.slice(1)}+`)), NoteError, 'seven hex digits');
  t.throws(() => parseVerifierKey(vkey.slice(0, -1)), NoteError, 'truncated base64');
  t.throws(() => parseVerifierKey(`${vkey}=`), NoteError, 'base64 with a stray pad');
  t.throws(() => parseVerifierKey('gateway.example'), NoteError);
  t.throws(() => verifierKey({ name: 'a+b', publicKey: signer.publicKey }), NoteError);
});

// Independent of the module: SHA-256(name || "\n" || key)[:4], as the Go note package computes it.
function createHashHex(name: string, key: Buffer): string {
  return createHash('sha256').update(name).update('\n').update(key).digest().subarray(0, 4).toString('hex');
}
