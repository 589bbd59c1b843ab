// GET /api/v1/ledger/check-chain and its old name verify-chain ("verify" is the prompt check's word;
// the old path stays for scripts that use it): one answer under both names, the same role and checks.
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';

t.test('check-chain answers what verify-chain answered; verify-chain still answers, marked deprecated', async (t) => {
  const gw = await startTestGateway(t);
  for (let i = 0; i < 3; i++)
    await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: `prompt ${i}` } });
  for (const stream of ['traces', 'admin']) {
    const now = await gw.api('GET', `/api/v1/ledger/check-chain?stream=${stream}`);
    t.equal(now.status, 200);
    t.match(now.body, { stream, intact: true, first_broken: null, checked: Number });
    const old = await gw.api('GET', `/api/v1/ledger/verify-chain?stream=${stream}`);
    t.equal(old.status, 200);
    t.same(old.body, now.body, `${stream}: the old name answers the same`);
  }
  t.equal((await gw.api('GET', '/api/v1/ledger/check-chain')).body.stream, 'traces', 'traces by default');

  const viewer = await gw.key('viewer');
  for (const path of ['/api/v1/ledger/check-chain', '/api/v1/ledger/verify-chain']) {
    t.equal((await gw.api('GET', path, { token: viewer })).status, 403, `${path}: admin only`);
    const bad = await gw.api('GET', `${path}?stream=nope`);
    t.equal(bad.status, 400, `${path}: an unknown stream is refused`);
    t.equal(bad.body.error.code, 'validation_error');
  }

  const doc = (await gw.api('GET', '/api/v1/openapi.json')).body;
  t.equal(doc.paths['/api/v1/ledger/verify-chain'].get.deprecated, true, 'the old name is deprecated in the document');
  t.notOk('deprecated' in doc.paths['/api/v1/ledger/check-chain'].get, 'the new one is not');
});
