// buildTrace's salts come from a block drawn many at a time: each trace still gets its own 16
// bytes, never shared and never overwritten by a later draw, and its content hash is the one a
// checker recomputes from the stored salt and body.
import t from 'tap';
import { contentHash } from '../../shared/ledger-hash.js';
import { traceInputProblem } from '../../daemon/ledger/dlq-outcome.js';
import { buildTrace } from '../../daemon/ledger/streams.js';

const at = { projectId: 'p', seq: 1, createdAt: new Date(0).toISOString(), prevHash: 'sha256:' + '0'.repeat(64) };

t.test('every trace gets its own salt, across draws, kept as it was handed out', async (t) => {
  const built = Array.from({ length: 1000 }, (_, i) => buildTrace({ traceType: 'T', decision: 'PASSED', content: { i } }, at));
  const salts = built.map((b) => b.extra!.row.salt as Buffer);
  const copies = salts.map((s) => Buffer.from(s).toString('hex'));
  t.ok(salts.every((s) => s.length === 16));
  t.equal(new Set(copies).size, 1000, 'no two traces share a salt');
  buildTrace({ traceType: 'T', decision: 'PASSED', content: {} }, at); // a later draw
  t.same(
    salts.map((s) => s.toString('hex')),
    copies,
    'a salt handed out is never overwritten',
  );
  for (const b of built) t.equal(b.header.content_hash, contentHash(b.extra!.row.salt as Buffer, b.extra!.row.body), 'hash recomputes');
});

t.test('content the canonical form refuses is refused before it is queued', async (t) => {
  t.equal(traceInputProblem({ traceType: 'T', decision: 'PASSED', content: { score: Number.NaN } }), 'content is not serialisable as JSON');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.equal(traceInputProblem({ traceType: 'T', decision: 'PASSED', content: cyclic }), 'content is not serialisable as JSON');
  t.equal(traceInputProblem({ traceType: 'T', decision: 'PASSED', content: { n: 1n } }), 'content is not serialisable as JSON');
  t.equal(traceInputProblem({ traceType: 'T', decision: 'PASSED', content: { ok: 'yes' } }), null);
});
