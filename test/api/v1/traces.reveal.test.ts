import t from 'tap';
import fs from 'node:fs/promises';
import { RAW_PURPOSE } from '../../../daemon/traces/reveal.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const RAW = { prompt: 'my card is 4111 1111 1111 1111' };

async function seedWithRaw(gw: TestGateway) {
  return gw.gateway.writer.append('default', {
    traceType: 'VERIFY',
    decision: 'MODIFIED',
    content: { display: 'my card is [PAYMENT_CARD]', raw: gw.gateway.secretBox.seal(JSON.stringify(RAW), RAW_PURPOSE) },
  });
}

const logCount = async (gw: TestGateway) => Number((await gw.db`select count(*)::int as n from admin_log`)[0]!.n);

t.test('reveal: Admin only, only at audit level full, one admin-log entry per success', async (t) => {
  const gw = await startTestGateway(t);
  const editor = await gw.key('editor');
  const tr = await seedWithRaw(gw);
  const before = await logCount(gw);
  const notFull = await gw.api('GET', `/api/v1/traces/${tr.id}/reveal`);
  t.equal(notFull.status, 409);
  t.equal(notFull.body.error.code, 'reveal_requires_full_audit');
  t.equal(await logCount(gw), before, 'a refused reveal writes nothing');
  await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } });
  t.equal((await gw.api('GET', `/api/v1/traces/${tr.id}/reveal`, { token: editor })).status, 403, 'Editor cannot reveal');
  const afterPatch = await logCount(gw);
  const res = await gw.api('GET', `/api/v1/traces/${tr.id}/reveal`);
  t.equal(res.status, 200);
  t.same(res.body.raw, RAW);
  t.equal(res.body.trace_id, tr.id);
  await gw.api('GET', `/api/v1/traces/${tr.id}/reveal`);
  t.equal(await logCount(gw), afterPatch + 2, 'each success is audited');
  const entry = (await gw.api('GET', '/api/v1/admin-log')).body.entries.at(-1);
  t.match(entry, { action: 'trace.reveal', target_id: tr.id, actor_id: 'admin', ocsf_activity_id: 2 });
  t.notMatch(JSON.stringify(entry), /4111[ -]?1111[ -]?1111/, 'the audit entry does not copy the content');
  const row = (await gw.api('GET', '/api/v1/traces')).body.traces[0];
  t.equal(row.raw_available, true);
  t.notMatch(JSON.stringify(row), /4111[ -]?1111[ -]?1111/);
});

t.test('raw originals are stored encrypted; reveal fails closed on a missing raw or another key', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } });
  const tr = await seedWithRaw(gw);
  const [stored] = await gw.db`select body::text as body from trace_content where trace_id = ${tr.id}`;
  t.notMatch(stored.body, /4111[ -]?1111[ -]?1111/, 'the database never holds the raw original in clear');
  const keyFile = await fs.stat(`${gw.dataDir}/encryption.key`);
  t.equal(keyFile.mode & 0o777, 0o600, 'the generated key file is 0600');
  const plain = await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: 'hello' } });
  t.equal((await gw.api('GET', `/api/v1/traces/${plain.id}/reveal`)).body.error.code, 'raw_not_available');
  t.equal((await gw.api('GET', '/api/v1/traces/00000000-0000-0000-0000-000000000000/reveal')).body.error.code, 'not_found');
  t.equal((await gw.api('GET', '/api/v1/traces/nope/reveal')).status, 404);
  const other = await startTestGateway(t, {
    databaseUrl: gw.databaseUrl,
    env: { GATEWAY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
  });
  const mismatch = await other.api('GET', `/api/v1/traces/${tr.id}/reveal`, { token: gw.adminToken });
  t.equal(mismatch.status, 503);
  t.equal(mismatch.body.error.code, 'encryption_key_mismatch');
  const owner = gw.db;
  const sealed = (await owner`select body -> 'raw' as raw from trace_content where trace_id = ${tr.id}`)[0]!.raw;
  const forged = { ...sealed, data: Buffer.from('{"prompt":"forged"}').toString('base64') };
  const forgedTrace = await gw.gateway.writer.append('default', {
    traceType: 'VERIFY',
    decision: 'MODIFIED',
    content: { display: 'x', raw: forged },
  });
  const tampered = await gw.api('GET', `/api/v1/traces/${forgedTrace.id}/reveal`);
  t.equal(tampered.status, 500, 'a ciphertext that does not authenticate is never returned');
  t.notMatch(tampered.text, /forged/);
});

t.test('raw originals are kept only while the level is full: leaving it shreds them, the chain still verifies', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } });
  const first = (await gw.api('POST', '/api/v1/verify', { body: { prompt: 'mail jane.doe@acme-corp.de please' } })).body;
  t.equal((await gw.api('GET', `/api/v1/traces/${first.trace_id}/reveal`)).status, 200);
  const [content] = await gw.db`select body::text as body from trace_content where trace_id = ${first.trace_id}`;

  const lowered = await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'standard' } });
  t.equal(lowered.status, 200);
  const entry = (await gw.api('GET', '/api/v1/admin-log')).body.entries.at(-1);
  t.match(entry.details, { raw_keys_destroyed: 1 });
  t.equal((await gw.db`select count(*)::int as n from raw_keys where wrapped is not null`)[0]!.n, 0, 'no usable key is left');

  await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } });
  const row = (await gw.api('GET', `/api/v1/traces?id=${first.trace_id}`)).body.traces[0];
  t.equal(row.raw_available, false, 'a shredded original is not available, even back at full');
  const gone = await gw.api('GET', `/api/v1/traces/${first.trace_id}/reveal`);
  t.equal(gone.status, 404);
  t.equal(gone.body.error.code, 'raw_not_available');
  t.same(
    (await gw.db`select body::text as body from trace_content where trace_id = ${first.trace_id}`)[0],
    content,
    'the stored content is unchanged',
  );
  t.equal((await gw.api('GET', '/api/v1/ledger/verify-chain')).body.intact, true, 'and its committed hash still verifies');

  const second = (await gw.api('POST', '/api/v1/verify', { body: { prompt: 'mail max@firma-gmbh.de please' } })).body;
  t.match(
    (await gw.api('GET', `/api/v1/traces/${second.trace_id}/reveal`)).body.raw.prompt,
    /max@firma-gmbh\.de/,
    'a new key seals what comes after',
  );
});
