import t from 'tap';
import { retentionDays } from '../../daemon/traces/retention.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const DAY = 86_400_000;

async function seed(gw: TestGateway, n: number) {
  const out = [];
  for (let i = 0; i < n; i += 1)
    out.push(await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: `prompt ${i}` } }));
  return out;
}

/** Ages content by moving its timestamp back (trace_content is the one deletable table). */
async function age(gw: TestGateway, ids: string[], days: number) {
  await gw.db`update trace_content set created_at = created_at - ${days + ' days'}::interval where trace_id in ${gw.db(ids)}`;
}

t.test('retention days: the lesser of the project setting and the tier cap', async (t) => {
  t.same(retentionDays(90, 'team'), { days: 90, tierCapDays: 365 });
  t.same(retentionDays(3650, 'team'), { days: 365, tierCapDays: 365 });
  t.same(retentionDays(3650, 'free'), { days: 30, tierCapDays: 30 });
  t.same(retentionDays(3650, 'no-such-plan'), { days: 30, tierCapDays: 30 }, 'an unknown tier gets the smallest cap');
  t.same(retentionDays(7, 'enterprise'), { days: 7, tierCapDays: 3650 });
});

t.test('retention deletes old content only, keeps the chain and proofs verifying, and logs the purge', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { retention_days: 10 } });
  const traces = await seed(gw, 6);
  const old = traces.slice(0, 4).map((x) => x.id);
  await age(gw, old.slice(0, 2), 11);
  await age(gw, old.slice(2, 4), 9);
  await gw.gateway.checkpointNow();

  const purges = await gw.gateway.retainNow();
  t.match(purges, [{ project_id: 'default', deleted: 2, days: 10 }]);
  const left = (await gw.db`select trace_id from trace_content order by created_at`).map((r) => r.trace_id);
  t.same(
    left.sort(),
    traces
      .slice(2)
      .map((x) => x.id)
      .sort(),
    'only content older than 10 days is gone',
  );
  t.equal((await gw.db`select count(*)::int as n from traces`)[0]!.n, 6, 'trace rows stay');

  t.equal((await gw.api('GET', '/api/v1/ledger/verify-chain')).body.intact, true, 'the chain still verifies');
  const proof = (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: old[0] } })).body;
  t.equal(proof.intact, true, 'a purged trace still proves');
  t.equal(proof.content_available, false);
  t.equal(proof.checks.content_hash, 'not_checked');

  const row = (await gw.api('GET', `/api/v1/traces?id=${old[0]}`)).body.traces[0];
  t.equal(row.content_state, 'unavailable');
  t.equal(row.display_content, '');

  const entry = (await gw.api('GET', '/api/v1/admin-log')).body.entries.find((e: { action: string }) => e.action === 'retention.purge');
  t.match(entry, {
    actor_kind: 'system',
    target_type: 'trace_content',
    details: { deleted: 2, retention_days: 10, tier: 'team', tier_cap_days: 365, first_sequence_num: 1, last_sequence_num: 2 },
  });

  const csv = await fetch(`${gw.url}/api/v1/export?format=csv&time_range=all`, {
    headers: { authorization: `Bearer ${gw.adminToken}` },
  }).then((r) => r.text());
  t.match(csv, old[0]!, 'exports still list purged traces');
  t.notMatch(csv, /prompt 0\b/, 'but not their deleted content');
  t.match(csv, /prompt 5/, 'retained content is exported');

  t.same(await gw.gateway.retainNow(), [], 'a second pass finds nothing and logs nothing');
  t.equal((await gw.db`select count(*)::int as n from admin_log where action = 'retention.purge'`)[0]!.n, 1);
});

t.test('the tier cap wins over a longer project setting', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { retention_days: 3650, tier: 'free' } });
  const traces = await seed(gw, 2);
  await age(gw, [traces[0]!.id], 31);
  t.match(await gw.gateway.retainNow(), [{ deleted: 1, days: 30 }]);
});

t.test('several daemons: one purge, one log entry', async (t) => {
  const gw = await startTestGateway(t);
  const second = await startTestGateway(t, { databaseUrl: gw.databaseUrl });
  const traces = await seed(gw, 50);
  await age(
    gw,
    traces.map((x) => x.id),
    400,
  );
  const now = new Date(Date.now() + DAY);
  const [a, b] = await Promise.all([gw.gateway.retainNow(now), second.gateway.retainNow(now)]);
  t.equal(
    [...a, ...b].reduce((n, p) => n + p.deleted, 0),
    50,
    'every row deleted exactly once',
  );
  t.equal((await gw.db`select count(*)::int as n from admin_log where action = 'retention.purge'`)[0]!.n, 1);
});
