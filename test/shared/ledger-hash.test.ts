import t from 'tap';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json.js';
import { contentHash, entryHash, GENESIS_HASH, isIntegrityHash } from '../../shared/ledger-hash.js';

t.test('canonical JSON is RFC 8785: sorted keys, no whitespace, ES number form', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1e21, y: 0.1 } }), '{"a":[true,null,"x"],"b":1,"c":{"y":0.1,"z":1e+21}}');
  t.equal(canonicalJson({ '\u20ac': 1, '\r': 2 }), '{"\\r":2,"€":1}');
});

t.test('entry hash is sha256 over the canonical header, lower-case hex behind the prefix', async (t) => {
  const header = { sequence_num: 1, prev_hash: GENESIS_HASH, decision: 'PASSED' };
  const expected =
    'sha256:'
    + createHash('sha256')
      .update('{"decision":"PASSED","prev_hash":"' + GENESIS_HASH + '","sequence_num":1}')
      .digest('hex');
  t.equal(entryHash(header), expected);
  t.ok(isIntegrityHash(expected));
  t.equal(entryHash({ prev_hash: GENESIS_HASH, decision: 'PASSED', sequence_num: 1 }), expected, 'key order does not matter');
  t.not(entryHash({ ...header, decision: 'BLOCKED' }), expected, 'any field changes the hash');
  t.notOk(isIntegrityHash('sha256:ABC'));
});

t.test('content hash depends on the salt, so purged content leaves nothing guessable', async (t) => {
  const a = contentHash(Buffer.alloc(16, 1), { prompt: 'yes' });
  const b = contentHash(Buffer.alloc(16, 2), { prompt: 'yes' });
  t.not(a, b);
  t.ok(isIntegrityHash(a));
  t.equal(contentHash(Buffer.alloc(16, 1), { prompt: 'yes' }), a);
});
