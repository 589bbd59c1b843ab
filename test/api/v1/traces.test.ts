import t from 'tap';
import type { TraceInput } from '../../../daemon/ledger/streams.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const ROW_FIELDS = [
  'action_name',
  'content_state',
  'decision',
  'display_content',
  'environment',
  'flare_status',
  'flare_tx_hash',
  'id',
  'input_prompt',
  'integrity_hash',
  'justification',
  'metadata',
  'output_response',
  'raw_available',
  'reason',
  'sequence_num',
  'timestamp',
  'userAction',
];

const CARD = '4111 1111 1111 1111';

async function seed(gw: TestGateway, input: Partial<TraceInput> & { decision: string }) {
  return gw.gateway.writer.append('default', { traceType: 'VERIFY', content: {}, ...input });
}

t.test('rows have exactly the spec fields and never raw content', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } });
  const modified = await seed(gw, {
    decision: 'MODIFIED',
    reason: 'payment card redacted',
    agentId: 'agent-1',
    content: {
      display: 'pay with [PAYMENT_CARD]',
      extracted_text: `scan says ${CARD}`,
      metadata: { source: 'api' },
      details: { entities: [{ type: 'PAYMENT_CARD', text: CARD }] },
      raw: { alg: 'stand-in for the encrypted original', prompt: `pay with ${CARD}` },
    },
  });
  const res = await gw.api('GET', '/api/v1/traces');
  t.equal(res.status, 200);
  t.equal(res.body.total, 1);
  const row = res.body.traces[0];
  t.same(Object.keys(row).sort(), ROW_FIELDS);
  t.match(row, {
    id: modified.id,
    sequence_num: modified.sequenceNum,
    decision: 'MODIFIED',
    integrity_hash: modified.integrityHash,
    display_content: 'pay with [PAYMENT_CARD]',
    input_prompt: 'pay with [PAYMENT_CARD]',
    content_state: 'transmitted_masked',
    raw_available: true,
    output_response: null,
    metadata: { source: 'api', agent_id: 'agent-1' },
    userAction: null,
    justification: null,
  });
  t.notMatch(JSON.stringify(res.body), /4111[ -]?1111[ -]?1111/, 'no field of the list carries the card number');
  const full = await gw.api('GET', `/api/v1/traces?id=${modified.id}`);
  t.equal(full.body.traces[0].extracted_text, null, 'extracted_text is null for a masked decision');
  t.notMatch(JSON.stringify(full.body), /scan says/, 'text extracted from attachments is not shown for a masked decision');
  t.notOk('raw' in full.body.traces[0].payloads, 'the raw original never appears in a lookup');
});

t.test('content_state and display by decision', async (t) => {
  const gw = await startTestGateway(t);
  await seed(gw, { decision: 'PASSED', content: { display: 'hello' } });
  await seed(gw, { decision: 'BLOCKED', content: { display: 'should not show' } });
  await seed(gw, { decision: 'MODIFIED', content: {} });
  await seed(gw, { decision: 'PENDING_APPROVAL', content: { display: 'held' } });
  const rows = (await gw.api('GET', '/api/v1/traces')).body.traces.reverse();
  t.same(
    rows.map((r: { content_state: string; display_content: string }) => [r.content_state, r.display_content]),
    [
      ['transmitted_plain', 'hello'],
      ['not_transmitted', ''],
      ['unavailable', ''],
      ['not_transmitted', ''],
    ],
  );
  t.ok(rows.every((r: { raw_available: boolean }) => r.raw_available === false));
});

t.test('filters: environment (default prod), decision, agent, time, paging; 400 for invalid values', async (t) => {
  const gw = await startTestGateway(t);
  const a = await seed(gw, { decision: 'PASSED', agentId: 'a1', content: { display: '1' } });
  const b = await seed(gw, { decision: 'BLOCKED', agentId: 'a2' });
  const c = await seed(gw, { decision: 'PASSED', environment: 'dev', content: { display: '3' } });
  const ids = async (query: string) => (await gw.api('GET', `/api/v1/traces${query}`)).body.traces.map((r: { id: string }) => r.id);
  t.same(await ids(''), [b.id, a.id], 'prod only, newest first');
  t.same(await ids('?environment=dev'), [c.id]);
  t.same(await ids('?env=dev'), [c.id], 'env is an alias');
  t.same(await ids('?decision=BLOCKED'), [b.id]);
  t.same(await ids('?agent_id=a1'), [a.id]);
  t.same(await ids('?time_range=24h'), [b.id, a.id]);
  t.same(await ids('?time_range=all&limit=1&offset=1'), [a.id]);
  t.equal((await gw.api('GET', '/api/v1/traces?limit=1')).body.total, 2, 'total counts every match, not the page');
  t.same(await ids(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`), []);
  t.same(await ids(`?until=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`), []);
  t.same(await ids(`?id=${c.id}`), [c.id], 'lookup by id ignores the environment filter');
  t.same(await ids('?id=00000000-0000-0000-0000-000000000000'), []);
  t.same(await ids('?id=not-a-uuid'), []);
  for (const bad of ['time_range=1y', 'decision=MAYBE', 'limit=1001', 'limit=0', 'offset=-1', 'since=yesterday']) {
    const res = await gw.api('GET', `/api/v1/traces?${bad}`);
    t.equal(res.status, 400, bad);
    t.equal(res.body.error.code, 'validation_error');
  }
  t.equal((await gw.api('GET', '/api/v1/traces', { token: await gw.key('viewer') })).status, 200, 'any role reads traces');
});

t.test('total: exact up to 10,000 matches or offset + limit, "more than" beyond; deep pages keep the order', async (t) => {
  const gw = await startTestGateway(t);
  // 10,050 prod rows written straight to the table (the list does not verify the chain); five share each timestamp.
  await gw.db`
    insert into traces (id, project_id, sequence_num, created_at, trace_type, decision, environment, content_hash, prev_hash, integrity_hash)
    select gen_random_uuid(), 'default', s, now() - make_interval(secs => (10050 - s) / 5), 'VERIFY',
      case when s <= 10000 then 'PASSED' else 'BLOCKED' end, 'prod', 'sha256:x', 'sha256:x', 'sha256:x'
    from generate_series(1, 10050) s`;
  const get = async (query: string) => (await gw.api('GET', `/api/v1/traces?${query}`)).body;
  const seqs = (body: { traces: { sequence_num: number }[] }) => body.traces.map((r) => r.sequence_num);
  t.equal((await get('limit=1')).total, 10_001, 'more than 10,000 matches: 10,001 (at least that many)');
  t.equal((await get('decision=PASSED')).total, 10_000, 'exact at the bound');
  t.equal((await get('decision=BLOCKED')).total, 50, 'exact below it');
  t.equal((await get('offset=9900&limit=100')).total, 10_001, 'a page ending at the bound with more after it');
  t.equal((await get('offset=9990&limit=100')).total, 10_050, 'exact once offset + limit reaches past every match');
  t.same(
    seqs(await get('limit=7')),
    [10050, 10049, 10048, 10047, 10046, 10045, 10044],
    'ties on the timestamp by sequence_num, newest first',
  );
  const deep = await get('offset=10045&limit=100');
  t.same(seqs(deep), [5, 4, 3, 2, 1]);
  t.equal(deep.total, 10_050);
  t.same(seqs(await get('decision=PASSED&offset=9998')), [2, 1], 'offsets apply after the filters');
});

t.test('lookup by id returns the full record: payloads, proof fields, reviewer action', async (t) => {
  const gw = await startTestGateway(t);
  const tr = await seed(gw, {
    decision: 'FLAGGED',
    content: { display: 'hi', extracted_text: 'from a pdf', context: { tool_name: 'x' }, details: { score: 0.7 } },
  });
  const rec = (await gw.api('GET', `/api/v1/traces?id=${tr.id}`)).body.traces[0];
  t.match(rec, {
    id: tr.id,
    trace_type: 'VERIFY',
    extracted_text: 'from a pdf',
    content_retained: true,
    payloads: { context: { tool_name: 'x' }, details: { score: 0.7 } },
  });
  t.match(rec.proof, { integrity_hash: tr.integrityHash, sequence_num: tr.sequenceNum });
  t.match(rec.proof.prev_hash, /^sha256:[0-9a-f]{64}$/);
  t.match(rec.proof.content_hash, /^sha256:[0-9a-f]{64}$/);
});

t.test('reviewer actions: validated, append-only, shown on the row, audited', async (t) => {
  const gw = await startTestGateway(t);
  const tr = await seed(gw, { decision: 'FLAGGED', content: { display: 'x' } });
  const before = await gw.db`select (select count(*)::int from trace_actions) as actions, (select count(*)::int from admin_log) as log`;
  for (const body of [
    { action: 'JUSTIFIED' },
    { action: 'JUSTIFIED', justification: 'too short' },
    { action: 'APPROVED' },
    { action: 'WARN_PROCEEDED', extra: 1 },
  ]) {
    const res = await gw.api('POST', `/api/v1/traces/${tr.id}/action`, { body });
    t.equal(res.status, 400, JSON.stringify(body));
  }
  t.equal(
    (await gw.api('POST', '/api/v1/traces/00000000-0000-0000-0000-000000000000/action', { body: { action: 'WARN_PROCEEDED' } })).status,
    404,
  );
  t.equal((await gw.api('POST', '/api/v1/traces/nope/action', { body: { action: 'WARN_PROCEEDED' } })).status, 404);
  t.same(
    await gw.db`select (select count(*)::int from trace_actions) as actions, (select count(*)::int from admin_log) as log`,
    before,
    'refusals wrote nothing',
  );
  t.equal((await gw.api('POST', `/api/v1/traces/${tr.id}/action`, { body: { action: 'WARN_PROCEEDED' } })).status, 201);
  const res = await gw.api('POST', `/api/v1/traces/${tr.id}/action`, {
    body: { action: 'JUSTIFIED', justification: 'needed for the quarterly report' },
  });
  t.equal(res.status, 201);
  t.match(res.body, { trace_id: tr.id, action: 'JUSTIFIED', actor_id: 'admin' });
  const row = (await gw.api('GET', '/api/v1/traces')).body.traces[0];
  t.match(row, { userAction: 'JUSTIFIED', justification: 'needed for the quarterly report' });
  const log = await gw.api('GET', '/api/v1/admin-log');
  t.match(log.body.entries.at(-1), { action: 'trace.reviewer_action', target_id: tr.id, details: { action: 'JUSTIFIED' } });
  const rewrite = await gw.db`update trace_actions set justification = 'edited'`.then(
    () => 'ok',
    (e: { code?: string }) => e.code,
  );
  t.equal(rewrite, 'GW001', 'reviewer actions are append-only');
  const key = await gw.key('viewer');
  await gw.api('POST', '/api/v1/project/emergency-stop');
  t.equal(
    (await gw.api('POST', `/api/v1/traces/${tr.id}/action`, { token: key, body: { action: 'WARN_PROCEEDED' } })).status,
    403,
    'project keys are stopped',
  );
  t.equal(
    (await gw.api('POST', `/api/v1/traces/${tr.id}/action`, { body: { action: 'WARN_PROCEEDED' } })).status,
    201,
    'user tokens keep trace actions during the stop',
  );
});
